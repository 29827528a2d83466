import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskRecord, TaskStatus } from '../../../core/task-store.js';
import { createdTask } from '../../sdk-workarounds.js';
import { notFound, taskTimes, type McpTasks } from '../../tasks.js';
import type { McpEraSettings, McpToolCallParams } from '../era.js';
import { runTaskCall } from '../task-call.js';

/** Where a 2025-era result names the task it belongs to. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A task as the 2025-11-25 revision sends it (`ttl` and `pollInterval` in milliseconds). */
export function legacyTask(task: TaskRecord): Record<string, unknown> {
  return { ...taskTimes(task), ttl: task.ttlMs, pollInterval: task.pollIntervalMs };
}

/**
 * The 2025-11-25 task methods on a request's SDK server: `tasks/get`, `tasks/result` (which
 * waits until the task ends, then answers what the call would have), `tasks/list` (the
 * caller's own) and `tasks/cancel`. Each answers only the caller that created the task; for
 * anyone else the task does not exist (`-32602`).
 */
export function registerLegacyTasks(
  server: Server,
  tasks: McpTasks,
  owner: () => Promise<string>,
): void {
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }) => {
    const task = await tasks.get(await owner(), taskId);
    if (!task) throw notFound();
    return legacyTask(task);
  });
  server.setRequestHandler('tasks/result', { params: TaskParams }, async ({ taskId }, ctx) => {
    const task = await tasks.settled(await owner(), taskId, ctx.mcpReq.signal);
    if (task.error) throw new ProtocolError(task.error.code, task.error.message, task.error.data);
    if (task.result === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${task.taskId} was ${task.status}: it has no result.`,
      );
    }
    const result = task.result as Record<string, unknown>;
    return {
      ...result,
      _meta: { ...(result._meta as object), [RELATED_TASK]: { taskId: task.taskId } },
    };
  });
  server.setRequestHandler('tasks/list', { params: ListParams }, async ({ cursor }) => {
    const page = await tasks.list(await owner(), cursor);
    return {
      tasks: page.tasks.map(legacyTask),
      ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
    };
  });
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }) => {
    const { task, cancelled } = await tasks.cancel(await owner(), taskId);
    if (!cancelled) throw alreadyTerminal(task.status);
    return legacyTask(task);
  });
}

/**
 * A 2025-11-25 `tools/call` of a tool that runs as a task: with `params.task`, the task is
 * stored and started, and its handle answered (`CreateTaskResult`); a tool that requires a
 * task called without one, or one that runs no task called with one, gets `-32601` as the
 * revision says. `undefined` for a plain call, which runs as usual. On this revision a tool
 * error fails the task (its result kept).
 */
export async function startLegacyTask(
  settings: McpEraSettings,
  tasks: McpTasks,
  server: Server,
  params: McpToolCallParams,
): Promise<Record<string, unknown> | undefined> {
  const spec = settings.spec(params.name);
  if (!spec) return undefined;
  const support = spec.task;
  if (params.task === undefined) {
    if (support !== 'required') return undefined;
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool "${params.name}" runs only as a task: call it with params.task.`,
    );
  }
  if (support === undefined) {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool "${params.name}" does not run as a task: call it without params.task.`,
    );
  }
  const task = await tasks.start(
    await settings.owner(),
    params.name,
    params.task?.ttl,
    { era: 'legacy' },
    async (running) => {
      const { result, isError } = await runTaskCall(
        settings,
        'legacy',
        server,
        params.arguments,
        running,
      );
      return { status: isError ? 'failed' : 'completed', result };
    },
  );
  return createdTask({ task: legacyTask(task) });
}

/** The 2025-11-25 `-32602` for cancelling a task that ended already. */
export function alreadyTerminal(status: TaskStatus): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Cannot cancel task: already in terminal status '${status}'`,
  );
}

// The SDK registers the task methods of the 2025-11-25 revision with schemas of their caller's
// choosing; these are the revision's own params.
const TaskParams = z.looseObject({ taskId: z.string() });
const ListParams = z.looseObject({ cursor: z.string().optional() });
