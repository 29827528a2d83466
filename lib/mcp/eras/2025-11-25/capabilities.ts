/** The `tasks` capability of a 2025-11-25 server whose tools may run as tasks. */
export const LEGACY_TASK_CAPABILITIES = Object.freeze({
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
});

/** The capabilities of a 2025-11-25 server: the shared ones, and `tasks` when tools run as tasks. */
export function legacyCapabilities(
  shared: Readonly<Record<string, unknown>>,
  tasks: boolean,
): Readonly<Record<string, unknown>> {
  return Object.freeze(tasks ? { ...shared, tasks: LEGACY_TASK_CAPABILITIES } : shared);
}
