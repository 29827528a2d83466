import type { Server } from '@modelcontextprotocol/server';
import type { ToolAsk } from '../../core/asking.js';
import type { TaskRun } from '../tasks.js';
import type { Era, McpEraSettings } from './era.js';

/**
 * Runs a task's call through the same path as any call, its progress reported as the task's
 * status message; resolves to the call's result as the request's server projects it, and
 * whether it is a tool error (each revision says what that makes of the task).
 */
export async function runTaskCall(
  settings: McpEraSettings,
  era: Era,
  server: Server,
  args: unknown,
  { task, signal, report }: Parameters<TaskRun>[0],
  ask?: ToolAsk,
): Promise<{ result: Record<string, unknown>; isError: boolean }> {
  const { result, outputSchema } = await settings.call(era, task.name, args, {
    // Not a JSON-RPC id: no 2025-era cancellation names it (a task is cancelled by tasks/cancel).
    requestId: { taskId: task.taskId },
    signal,
    ask,
    progressToken: 'task',
    notify: (method, params) => {
      if (method !== 'notifications/progress') return;
      const { progress, total, message } = params as {
        progress: number;
        total?: number;
        message?: string;
      };
      report(message ?? (total !== undefined ? `${progress} of ${total}` : String(progress)));
    },
  });
  const projected = server.projectCallToolResult(result, outputSchema) as Record<string, unknown>;
  return { result: projected, isError: result.isError === true };
}
