import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskRecord } from '../../../core/task-store.js';
import { elicitationParams } from '../../asking.js';
import { createdTask, taskUpdateResponses } from '../../sdk-workarounds.js';
import { notFound, taskTimes, type McpTasks } from '../../tasks.js';
import type { McpEraSettings, McpToolCallParams } from '../era.js';
import { runTaskCall } from '../task-call.js';

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
    await tasks.answer(await owner(), taskId, taskUpdateResponses(ctx));
    return { resultType: 'complete' };
  });
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    if (!declaresTasks(ctx)) throw missingTasksCapability();
    await tasks.cancel(await owner(), taskId);
    return { resultType: 'complete' };
  });
}

/**
 * A 2026-07-28 `tools/call` of a tool that runs as a task, from a client that declared the
 * tasks extension: the task is stored and started, and its handle answered (`resultType:
 * "task"`); its questions become the task's `inputRequests`, answered by `tasks/update`. A
 * tool that requires a task, called by a client that did not declare the extension, gets
 * `-32021`. `undefined` for a call that runs as usual. On this revision a tool error completes
 * the task.
 */
export async function startModernTask(
  settings: McpEraSettings,
  tasks: McpTasks,
  server: Server,
  ctx: ServerContext,
  params: McpToolCallParams,
): Promise<Record<string, unknown> | undefined> {
  const support = settings.spec(params.name)?.task;
  if (support === undefined) return undefined;
  if (!declaresTasks(ctx)) {
    if (support === 'required') throw missingTasksCapability();
    return undefined;
  }
  const task = await tasks.start(
    await settings.owner(),
    params.name,
    undefined,
    { era: 'modern' },
    async (running) => {
      const { result } = await runTaskCall(
        settings,
        'modern',
        server,
        params.arguments,
        running,
        tasks.asker(running.task, (question) => ({
          method: 'elicitation/create',
          params: elicitationParams(question),
        })),
      );
      return { status: 'completed', result };
    },
  );
  return createdTask({ resultType: 'task', ...modernTask(task) });
}

// The extension's request params (its schema, as the SDK ships none for the extension).
const TaskParams = z.looseObject({ taskId: z.string() });
