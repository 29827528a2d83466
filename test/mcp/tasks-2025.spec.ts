/**
 * MCP tasks on the 2025-11-25 era, end to end with the official SDK 1.x client's task support
 * (`client.experimental.tasks`): a tool that declares `task` lists its `execution.taskSupport`,
 * a task-augmented call answers a handle at once, the task runs through the canonical runner
 * (one `afterToolCall`), its progress is its status message, `tasks/result` waits for its end,
 * `tasks/list` shows the caller's own, `tasks/cancel` aborts the handler, a terminal task never
 * changes, another caller is told the task does not exist, and a task's time runs out (an
 * instance that dies mid-task: test/redis/task-lease.spec.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, InMemoryTaskStore } from '../../lib/core/index.js';
import type { ToolCallEvent } from '../../lib/core/hooks.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import { deferred, waitFor, type Deferred } from '../fixtures/timing.js';
import { closeServer, identifyByAuthorization } from '../fixtures/mcp-http.js';

/** The exports waiting to be let go, by key; and what each run saw. */
const gates = new Map<string, Deferred>();
const aborted = new Map<string, unknown>();
const ends: ToolCallEvent[] = [];

const exportTickets = defineRuntimeTool({
  description: 'Export the tickets of a tenant (slow)',
  identity: { serviceName: 'reports', action: 'export', method: 'POST' },
  input: z.object({ key: z.string(), fail: z.boolean().optional() }),
  output: z.object({ rows: z.number() }),
  task: 'optional',
  handler: async ({ input, signal, reportProgress }) => {
    const gate = deferred();
    gates.set(input.key, gate);
    signal.addEventListener('abort', () => aborted.set(input.key, signal.reason), { once: true });
    reportProgress({ progress: 1, total: 2, message: 'Reading tickets' });
    await gate.promise;
    if (input.fail) throw new Error('the export broke');
    return { rows: 42 };
  },
});

const archive = defineRuntimeTool({
  description: 'Archive everything (only as a task)',
  identity: { serviceName: 'reports', action: 'archive', method: 'POST' },
  input: z.object({}),
  task: 'required',
  handler: () => ({ archived: true }),
});

const confirmFirst = defineRuntimeTool({
  description: 'Purge old tickets once the user confirms (as a task)',
  identity: { serviceName: 'reports', action: 'purge', method: 'DELETE' },
  input: z.object({}),
  task: 'optional',
  asks: { confirm: true },
  handler: async ({ confirm }) => ({ purged: await confirm('Purge?') }),
});

const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'reports', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});

const store = new InMemoryTaskStore();
let server: Server;
let listener: McpRequestListener;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  const invoker = createToolInvoker([exportTickets, archive, confirmFirst, ping], {
    onCallFinished: (event) => ends.push(event),
  });
  listener = createMcpHttpHandler(invoker, {
    identify: identifyByAuthorization,
    tasks: { store, pollIntervalMs: 20 },
  });
  await listener.ready();
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  for (const gate of gates.values()) gate.resolve();
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
});
beforeEach(() => {
  ends.length = 0;
});

/** A 2025-11-25 client; `who` is its credential, which the tasks it creates are bound to. */
async function connect(who = 'alice'): Promise<Client> {
  const client = new Client({ name: `reports-${who}`, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${who}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** Starts an export as a task; resolves to its id once the handler runs. */
async function startExport(client: Client, key: string, extra: { fail?: boolean } = {}) {
  const created = await client.request(
    {
      method: 'tools/call',
      params: { name: 'reports_export', arguments: { key, ...extra }, task: { ttl: 60_000 } },
    },
    z.object({ task: z.object({ taskId: z.string() }).passthrough() }).passthrough() as never,
  );
  expect(await waitFor(() => gates.has(key))).toBe(true);
  return (created as { task: { taskId: string } }).task.taskId;
}

describe('MCP tasks, 2025-11-25 era (SDK 1.x client)', () => {
  it('declares them: the tasks capability, and execution.taskSupport per tool', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(support).toEqual({
      reports_export: { taskSupport: 'optional' },
      reports_archive: { taskSupport: 'required' },
      reports_purge: { taskSupport: 'optional' },
      reports_ping: undefined,
    });
  });

  it('runs a call as a task: a handle at once, progress as its status, the result at the end', async () => {
    const client = await connect();
    const messages: Array<{ type: string; [key: string]: any }> = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'reports_export', arguments: { key: 'stream' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const reading = (async () => {
      for await (const message of stream) messages.push(message);
    })();
    expect(await waitFor(() => gates.has('stream'))).toBe(true);
    expect(
      await waitFor(() =>
        messages.some((m) => m.type === 'taskStatus' && m.task.statusMessage === 'Reading tickets'),
      ),
    ).toBe(true);
    gates.get('stream')!.resolve();
    await reading;
    expect(messages[0]).toMatchObject({
      type: 'taskCreated',
      task: { status: 'working', ttl: 60_000, pollInterval: 20 },
    });
    expect(messages.at(-1)).toEqual({
      type: 'result',
      result: expect.objectContaining({
        structuredContent: { rows: 42 },
        _meta: { 'io.modelcontextprotocol/related-task': { taskId: messages[0].task.taskId } },
      }),
    });
    expect(messages.at(-2)).toMatchObject({ type: 'taskStatus', task: { status: 'completed' } });
  });

  it('tasks/result waits for the end, and the call ran once through the runner', async () => {
    const client = await connect();
    const taskId = await startExport(client, 'wait');
    let settled = false;
    const result = client.experimental.tasks
      .getTaskResult(taskId, CallToolResultSchema)
      .finally(() => (settled = true));
    await client.experimental.tasks.getTask(taskId);
    expect(settled).toBe(false);
    gates.get('wait')!.resolve();
    expect((await result).structuredContent).toEqual({ rows: 42 });
    expect(ends.filter((event) => event.name === 'reports_export')).toHaveLength(1);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({
      taskId,
      status: 'completed',
      statusMessage: 'Reading tickets',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastUpdatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('a tool error fails the task on this era, its result kept for tasks/result', async () => {
    const client = await connect();
    const taskId = await startExport(client, 'broken', { fail: true });
    gates.get('broken')!.resolve();
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      error: 'INTERNAL_SERVER_ERROR',
    });
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('failed');
  });

  it('cancels a task: the handler’s signal aborts, and the task stays cancelled', async () => {
    const client = await connect();
    const taskId = await startExport(client, 'cancel');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    expect(await waitFor(() => aborted.has('cancel'))).toBe(true);
    expect(await waitFor(() => ends.some((event) => event.name === 'reports_export'))).toBe(true);
    gates.get('cancel')!.resolve();
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("already in terminal status 'cancelled'"),
    });
  });

  it('another caller is told the task does not exist, and lists only its own', async () => {
    const alice = await connect('alice-lists');
    const mallory = await connect('mallory');
    const taskId = await startExport(alice, 'private');
    for (const attempt of [
      () => mallory.experimental.tasks.getTask(taskId),
      () => mallory.experimental.tasks.cancelTask(taskId),
      () => mallory.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
    ]) {
      await expect(attempt()).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Task not found'),
      });
    }
    expect((await mallory.experimental.tasks.listTasks()).tasks).toEqual([]);
    // A cursor of another caller's list (a task id) is not one of this caller's.
    await expect(mallory.experimental.tasks.listTasks(taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid cursor'),
    });
    expect((await alice.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toEqual([
      taskId,
    ]);
    gates.get('private')!.resolve();
  });

  it('a tool that requires a task, called plainly, and one that runs none, called as one: -32601', async () => {
    const client = await connect();
    await expect(client.callTool({ name: 'reports_archive', arguments: {} })).rejects.toMatchObject(
      {
        code: -32601,
        message: expect.stringContaining('runs only as a task'),
      },
    );
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'reports_ping', arguments: {}, task: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601, message: expect.stringContaining('does not run') });
    // The same tools called the way they run answer as usual.
    expect((await client.callTool({ name: 'reports_ping', arguments: {} })).isError).toBeFalsy();
  });

  it('a task cannot ask the user on this era: the handler’s question fails USER_INPUT_UNAVAILABLE', async () => {
    const client = await connect();
    const created = await client.request(
      { method: 'tools/call', params: { name: 'reports_purge', arguments: {}, task: {} } },
      z.object({ task: z.object({ taskId: z.string() }).passthrough() }) as never,
    );
    const { taskId } = (created as { task: { taskId: string } }).task;
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({
      error: 'USER_INPUT_UNAVAILABLE',
    });
  });

  it('a task and its result are gone once its time is up', async () => {
    const client = await connect();
    const created = await client.request(
      {
        method: 'tools/call',
        params: { name: 'reports_archive', arguments: {}, task: { ttl: 30 } },
      },
      z.object({ task: z.object({ taskId: z.string(), ttl: z.number() }).passthrough() }) as never,
    );
    const { taskId, ttl } = (created as { task: { taskId: string; ttl: number } }).task;
    expect(ttl).toBe(30);
    expect(
      await waitFor(() =>
        client.experimental.tasks.getTask(taskId).then(
          () => false,
          (error: { code?: number }) => error.code === -32602,
        ),
      ),
    ).toBe(true);
  });
});
