import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskRecord } from '../core/task-store.js';
import { notFound, taskTimes, type McpTasks } from './tasks.js';

/** The identifier of the tasks extension of the 2026-07-28 revision. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The JSON-RPC code of a request the client's declared capabilities do not allow. */
const MISSING_CLIENT_CAPABILITY = -32021;

/** Whether the request's client declared the tasks extension in its per-request capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  return declaresTasksIn(ctx.mcpReq.envelope as Record<string, unknown> | undefined);
}

/** Whether a 2026-era envelope (a request's `_meta`) declares the tasks extension. */
export function declaresTasksIn(envelope: Record<string, unknown> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof declared === 'object' && declared !== null;
}

/** The `-32021` the extension answers a client that did not declare it. */
export function missingTasksCapability(): ProtocolError {
  return new ProtocolError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** A task as the tasks extension sends it (`ttlMs`, `pollIntervalMs`). */
export function modernTask(task: TaskRecord): Record<string, unknown> {
  return { ...taskTimes(task), ttlMs: task.ttlMs, pollIntervalMs: task.pollIntervalMs };
}

/**
 * A task with what its status carries: the result, the error, or the questions it waits on.
 * The result is the call's, a 2026-07-28 result: it says its `resultType`, which the revision
 * makes a MUST for every result (a client checks the inlined one as it would the call's own).
 */
function detailedTask(task: TaskRecord): Record<string, unknown> {
  return {
    ...modernTask(task),
    ...(task.status === 'completed' && {
      result: { ...(task.result as Record<string, unknown>), resultType: 'complete' },
    }),
    ...(task.status === 'failed' && task.error && { error: task.error }),
    ...(task.status === 'input_required' && { inputRequests: task.inputRequests ?? {} }),
  };
}

/**
 * The extension's methods on a 2026-07-28 request's SDK server: `tasks/get` (the task, with
 * its result, error or questions), `tasks/update` (answers to its questions) and
 * `tasks/cancel` (acknowledged; a task that ended already stays as it is). Each refuses a
 * client that did not declare the extension (`-32021`) and answers only the caller that
 * created the task (`-32602` for anyone else, as for no task at all).
 */
export function registerModernTasks(
  server: Server,
  tasks: McpTasks,
  owner: () => Promise<string>,
): void {
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
    if (!declaresTasks(ctx)) throw missingTasksCapability();
    const task = await tasks.get(await owner(), taskId);
    if (!task) throw notFound();
    return { resultType: 'complete', ...detailedTask(task) };
  });
  server.setRequestHandler('tasks/update', { params: TaskParams }, async ({ taskId }, ctx) => {
    if (!declaresTasks(ctx)) throw missingTasksCapability();
    // The SDK lifts `inputResponses` out of the params, as for a multi round-trip request.
    await tasks.answer(await owner(), taskId, ctx.mcpReq.inputResponses ?? {});
    return { resultType: 'complete' };
  });
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    if (!declaresTasks(ctx)) throw missingTasksCapability();
    await tasks.cancel(await owner(), taskId);
    return { resultType: 'complete' };
  });
}

// The extension's request params (its schema, as the SDK ships none for the extension).
const TaskParams = z.looseObject({ taskId: z.string() });
