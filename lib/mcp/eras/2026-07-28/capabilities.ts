import { TASKS_EXTENSION } from './tasks.js';

/**
 * The capabilities of a 2026-07-28 server: the shared ones, and the tasks extension when tools
 * run as tasks.
 */
export function modernCapabilities(
  shared: Readonly<Record<string, unknown>>,
  tasks: boolean,
): Readonly<Record<string, unknown>> {
  return Object.freeze(tasks ? { ...shared, extensions: { [TASKS_EXTENSION]: {} } } : shared);
}
