/**
 * What one caller may hold in tasks, on both eras: `maxLiveTasks` live tasks at a time (one
 * more is `-32602` until one ends; another caller is not held back), a 2025-era ttl cut to
 * `maxTtlMs` (1 h by default; a ttl that is not a positive number is `-32602`), and results
 * up to `maxResultBytes` (a larger one fails the task with `-32603` instead of being kept).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import {
  closeServer,
  identifyByAuthorization,
  MODERN_META,
  rpc as rpcOf,
  type Era,
} from '../fixtures/mcp-http.js';
import { Latches, waitFor } from '../fixtures/timing.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const MAX_RESULT_BYTES = 4_096;
const gates = new Latches();

const exportTickets = defineRuntimeTool({
  description: 'Export the tickets of a tenant (slow)',
  identity: { serviceName: 'reports', action: 'export', method: 'POST' },
  input: z.object({ key: z.string() }),
  task: 'optional',
  handler: async ({ input }) => {
    await gates.get(input.key).promise;
    return { rows: 42 };
  },
});

const dump = defineRuntimeTool({
  description: 'Dump a report of the given size',
  identity: { serviceName: 'reports', action: 'dump', method: 'GET' },
  input: z.object({ size: z.number().int() }),
  task: 'optional',
  handler: ({ input }) => ({ text: 'x'.repeat(input.size) }),
});

let server: Server;
let listener: McpRequestListener;
let url: string;

beforeAll(async () => {
  listener = createMcpHttpHandler(createToolInvoker([exportTickets, dump]), {
    identify: identifyByAuthorization,
    tasks: { maxLiveTasks: 2, maxResultBytes: MAX_RESULT_BYTES, pollIntervalMs: 20 },
  });
  await listener.ready();
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
});

/** One request of an era as `who`; a 2026-era one declares the tasks extension. */
function rpc(era: Era, who: string, method: string, params: Record<string, unknown>) {
  const envelope =
    era === 'modern'
      ? {
          _meta: {
            ...MODERN_META,
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
          },
        }
      : {};
  return rpcOf(url, era, method, { ...params, ...envelope }, { authorization: `Bearer ${who}` });
}

/** Calls a tool as a task; resolves to the JSON-RPC answer. */
function startTask(era: Era, who: string, name: string, args: object, ttl?: unknown) {
  return rpc(era, who, 'tools/call', {
    name,
    arguments: args,
    ...(era === 'legacy' && { task: ttl === undefined ? {} : { ttl } }),
  });
}

/** The id of the task a `tools/call` created, on either era. */
const taskIdOf = (era: Era, answer: { result?: any }): string =>
  era === 'legacy' ? answer.result.task.taskId : answer.result.taskId;

describe.each(['legacy', 'modern'] as const)('task limits, %s era', (era) => {
  it('a caller with maxLiveTasks live tasks is refused one more (-32602) until one ends', async () => {
    const who = `busy-${era}`;
    const first = await startTask(era, who, 'reports_export', { key: `${era}-1` });
    await startTask(era, who, 'reports_export', { key: `${era}-2` });
    const refused = await startTask(era, who, 'reports_export', { key: `${era}-3` });
    expect(refused.error).toEqual({
      code: -32602,
      message:
        'Too many tasks: this caller has 2 tasks running already, the most it may have. ' +
        'Wait for one to end, or cancel one, then call again.',
      data: { reason: 'too_many_tasks', maxLiveTasks: 2 },
    });
    // Another caller has places of its own.
    const other = await startTask(era, `other-${era}`, 'reports_export', { key: `${era}-other` });
    expect(other.error).toBeUndefined();

    gates.get(`${era}-1`).resolve();
    const taskId = taskIdOf(era, first);
    expect(
      await waitFor(
        async () => (await rpc(era, who, 'tasks/get', { taskId })).result?.status === 'completed',
      ),
    ).toBe(true);
    const again = await startTask(era, who, 'reports_export', { key: `${era}-4` });
    expect(again.error).toBeUndefined();
    for (const key of ['2', '4', 'other']) gates.get(`${era}-${key}`).resolve();
  });

  it('a result larger than maxResultBytes fails the task with -32603 instead of being kept', async () => {
    const who = `dumper-${era}`;
    const small = await startTask(era, who, 'reports_dump', { size: 100 });
    const large = await startTask(era, who, 'reports_dump', { size: MAX_RESULT_BYTES });
    const get = async (answer: { result?: any }) =>
      (await rpc(era, who, 'tasks/get', { taskId: taskIdOf(era, answer) })).result;
    let task: any;
    expect(await waitFor(async () => (task = await get(small)).status === 'completed')).toBe(true);
    expect(await waitFor(async () => (task = await get(large)).status !== 'working')).toBe(true);
    const message = expect.stringMatching(
      /^The task's result is too large to keep: \d+ bytes, the most is 4096\.$/,
    );
    expect(task).toMatchObject({ status: 'failed', statusMessage: message });
    if (era === 'modern') {
      expect(GetTaskResultV2Schema.safeParse(task).error?.issues).toBeUndefined();
      expect(task.error).toEqual({ code: -32603, message });
    } else {
      const result = await rpc(era, who, 'tasks/result', { taskId: taskIdOf(era, large) });
      expect(result.error).toEqual({ code: -32603, message });
    }
  });
});

describe('a 2025-era ttl', () => {
  it('longer than maxTtlMs is cut to it: 1 h by default', async () => {
    const created = await startTask('legacy', 'keeper', 'reports_dump', { size: 1 }, 86_400_000);
    expect(created.result.task.ttl).toBe(3_600_000);
    const shorter = await startTask('legacy', 'keeper', 'reports_dump', { size: 1 }, 60_000);
    expect(shorter.result.task.ttl).toBe(60_000);
  });

  it.each([0, -5])('of %s is refused with -32602, and no task is created', async (ttl) => {
    const refused = await startTask('legacy', 'negative', 'reports_dump', { size: 1 }, ttl);
    expect(refused.error).toEqual({
      code: -32602,
      message: `Invalid task.ttl: expected a positive number of milliseconds, got ${ttl}.`,
    });
    expect((await rpc('legacy', 'negative', 'tasks/list', {})).result.tasks).toEqual([]);
  });
});
