/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) of the 2026-07-28 revision, with raw
 * requests that follow the extension's specification (no 2026 client ships it yet): the server
 * discovers the extension; a client that declares it gets `resultType: "task"` for a tool that
 * runs as a task; `tasks/get` inlines the result once done, the error once failed, and the
 * questions while `input_required`; `tasks/update` answers them; `tasks/cancel` aborts the
 * handler; a client that did not declare the extension gets `-32021`; another caller gets
 * `-32602`. Every answer is checked against the extension's own schemas, as the official tasks
 * client (`@modelcontextprotocol/ext-tasks`) reads them: a completed task's inlined result with
 * them, as the 2026-07-28 revision's `CallToolResult` it is.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import type { ToolCallEvent } from '../../lib/core/hooks.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import {
  closeServer,
  identifyByAuthorization,
  MODERN_META,
  rpc as rpcOf,
} from '../fixtures/mcp-http.js';
import { deferred, waitFor, type Deferred } from '../fixtures/timing.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const gates = new Map<string, Deferred>();
const aborted = new Set<string>();
const ends: ToolCallEvent[] = [];
const Priority = z.object({ priority: z.enum(['low', 'high']) });

const exportTickets = defineRuntimeTool({
  description: 'Export the tickets of a tenant (slow)',
  identity: { serviceName: 'reports', action: 'export', method: 'POST' },
  input: z.object({ key: z.string(), fail: z.boolean().optional(), ask: z.boolean().optional() }),
  output: z.object({ rows: z.number(), priority: z.string().optional() }),
  task: 'optional',
  asks: { confirm: true, elicit: [Priority] },
  handler: async ({ input, signal, reportProgress, confirm, elicit }) => {
    signal.addEventListener('abort', () => aborted.add(input.key), { once: true });
    reportProgress({ message: 'Reading tickets' });
    if (input.ask) {
      if (!(await confirm('Export every ticket?'))) return { rows: 0 };
      const answer = await elicit({ message: 'Which priority?', schema: Priority });
      return { rows: 7, priority: answer.action === 'accept' ? answer.content.priority : 'none' };
    }
    const gate = deferred();
    gates.set(input.key, gate);
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

let server: Server;
let listener: McpRequestListener;
let url: string;

beforeAll(async () => {
  const invoker = createToolInvoker([exportTickets, archive], {
    onCallFinished: (event) => ends.push(event),
  });
  listener = createMcpHttpHandler(invoker, {
    identify: identifyByAuthorization,
    tasks: { pollIntervalMs: 25 },
  });
  await listener.ready();
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  for (const gate of gates.values()) gate.resolve();
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
});

/** The request's envelope, declaring the tasks extension unless `declare` is false. */
const meta = (declare = true) => ({
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS]: {} } } : {},
});

/** One 2026-07-28 request as `who`; resolves to its JSON-RPC answer. */
const rpc = (
  method: string,
  params: Record<string, unknown>,
  { who = 'alice', declare = true }: { who?: string; declare?: boolean } = {},
) =>
  rpcOf(
    url,
    'modern',
    method,
    { ...params, _meta: meta(declare) },
    {
      authorization: `Bearer ${who}`,
    },
  );

const start = (args: Record<string, unknown>, who = 'alice') =>
  rpc('tools/call', { name: 'reports_export', arguments: args }, { who });

/** A schema of the extension, as the official client's codecs parse with it. */
interface WireSchema {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown } };
}

/**
 * Checks an answer as the official tasks client reads it: valid for the extension's schema,
 * and nothing in it the schema does not describe.
 */
function expectWire(schema: WireSchema, answer: unknown): void {
  const parsed = schema.safeParse(answer);
  expect(parsed.error?.issues).toBeUndefined();
  expect(parsed.data).toEqual(answer);
}

/** `tasks/get` of the task, checked as the official client reads it. */
async function getTask(taskId: string, who = 'alice'): Promise<any> {
  const { result, error } = await rpc('tasks/get', { taskId }, { who });
  expect(error).toBeUndefined();
  expectWire(GetTaskResultV2Schema, result);
  return result;
}

describe('the tasks extension (2026-07-28)', () => {
  it('is discovered, and a declaring client gets a task handle for a tool that runs as one', async () => {
    const discovered = await rpc('server/discover', {});
    expect(discovered.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    const listed = await rpc('tools/list', {});
    expect(
      Object.fromEntries(
        listed.result.tools.map((tool: { name: string; execution?: unknown }) => [
          tool.name,
          tool.execution,
        ]),
      ),
    ).toEqual({
      // The 2026-07-28 revision has no per-tool task field: the server decides per call.
      reports_export: undefined,
      reports_archive: undefined,
    });
    const created = await start({ key: 'handle' });
    expectWire(CreateTaskResultV2Schema, created.result);
    expect(created.result).toEqual({
      resultType: 'task',
      taskId: expect.stringMatching(/^[\w-]{32}$/),
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: 3_600_000,
      pollIntervalMs: 25,
      _meta: expect.any(Object),
    });
    expect(await waitFor(() => gates.has('handle'))).toBe(true);
    gates.get('handle')!.resolve();
  });

  it('tasks/get: working with its status message, then completed with the result inlined', async () => {
    const { result } = await start({ key: 'poll' });
    expect(await waitFor(() => gates.has('poll'))).toBe(true);
    const working = await getTask(result.taskId);
    expect(working).toEqual({
      resultType: 'complete',
      taskId: result.taskId,
      status: 'working',
      statusMessage: 'Reading tickets',
      createdAt: result.createdAt,
      lastUpdatedAt: expect.any(String),
      ttlMs: 3_600_000,
      pollIntervalMs: 25,
      _meta: expect.any(Object),
    });
    gates.get('poll')!.resolve();
    let done: any;
    expect(
      await waitFor(async () => (done = await getTask(result.taskId)).status === 'completed'),
    ).toBe(true);
    // The call's own result, as the revision says it: with its resultType.
    expectWire(CallToolResultV2Schema, done.result);
    expect(done.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: '{"rows":42}' }],
      structuredContent: { rows: 42 },
    });
    expect(ends.filter((event) => event.name === 'reports_export').length).toBeGreaterThan(0);
  });

  it('a tool error completes the task on this era, with the isError result', async () => {
    const { result } = await start({ key: 'broken', fail: true });
    expect(await waitFor(() => gates.has('broken'))).toBe(true);
    gates.get('broken')!.resolve();
    let done: any;
    expect(
      await waitFor(async () => (done = await getTask(result.taskId)).status !== 'working'),
    ).toBe(true);
    expect(done.status).toBe('completed');
    expectWire(CallToolResultV2Schema, done.result);
    expect(done.result).toMatchObject({ resultType: 'complete', isError: true });
  });

  it('asks through the task: input_required with its questions, answered by tasks/update', async () => {
    const { result } = await start({ key: 'asking', ask: true });
    const poll = () => getTask(result.taskId);
    let task: any;
    expect(await waitFor(async () => (task = await poll()).status === 'input_required')).toBe(true);
    expect(task.inputRequests).toEqual({
      q0: {
        method: 'elicitation/create',
        params: { message: 'Export every ticket?', requestedSchema: expect.any(Object) },
      },
    });
    // An answer to a key the task does not wait on is ignored.
    const ignored = await rpc('tasks/update', {
      taskId: result.taskId,
      inputResponses: { q9: {} },
    });
    expectWire(UpdateTaskResultV2Schema, ignored.result);
    await rpc('tasks/update', {
      taskId: result.taskId,
      inputResponses: { q0: { action: 'accept', content: {} } },
    });
    expect(await waitFor(async () => (task = await poll()).inputRequests?.q1 !== undefined)).toBe(
      true,
    );
    expect(task.inputRequests.q1.params.message).toBe('Which priority?');
    await rpc('tasks/update', {
      taskId: result.taskId,
      inputResponses: { q1: { action: 'accept', content: { priority: 'high' } } },
    });
    expect(await waitFor(async () => (task = await poll()).status === 'completed')).toBe(true);
    expectWire(CallToolResultV2Schema, task.result);
    expect(task.result.structuredContent).toEqual({ rows: 7, priority: 'high' });
  });

  it('tasks/cancel: acknowledged, the handler’s signal aborts, and the task stays cancelled', async () => {
    const { result } = await start({ key: 'cancel' });
    expect(await waitFor(() => gates.has('cancel'))).toBe(true);
    const acknowledged = await rpc('tasks/cancel', { taskId: result.taskId });
    expectWire(CancelTaskResultV2Schema, acknowledged.result);
    expect(await waitFor(() => aborted.has('cancel'))).toBe(true);
    gates.get('cancel')!.resolve();
    expect((await getTask(result.taskId)).status).toBe('cancelled');
    // Cancelling a task that ended is acknowledged, and changes nothing.
    expectWire(
      CancelTaskResultV2Schema,
      (await rpc('tasks/cancel', { taskId: result.taskId })).result,
    );
    expect((await getTask(result.taskId)).status).toBe('cancelled');
  });

  it('a client that did not declare the extension: a plain call, -32021 for a required task and every task method', async () => {
    const call = rpc(
      'tools/call',
      { name: 'reports_export', arguments: { key: 'undeclared' } },
      { declare: false },
    );
    expect(await waitFor(() => gates.has('undeclared'))).toBe(true);
    gates.get('undeclared')!.resolve();
    const plain = await call;
    // Not a task: the call ran to its end within the request.
    expect(plain.result).toMatchObject({ resultType: 'complete', structuredContent: { rows: 42 } });
    const required = await rpc(
      'tools/call',
      { name: 'reports_archive', arguments: {} },
      { declare: false },
    );
    const missing = {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    };
    expect(required.error).toEqual(missing);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      expect((await rpc(method, { taskId: 'any' }, { declare: false })).error).toEqual(missing);
    }
    expect(
      (await rpc('tasks/update', { taskId: 'any', inputResponses: {} }, { declare: false })).error,
    ).toEqual(missing);
  });

  it('another caller, or a task id that names nothing: -32602', async () => {
    const { result } = await start({ key: 'private' });
    for (const [method, params] of [
      ['tasks/get', { taskId: result.taskId }],
      ['tasks/cancel', { taskId: result.taskId }],
      ['tasks/update', { taskId: result.taskId, inputResponses: {} }],
    ] as const) {
      expect((await rpc(method, params, { who: 'mallory' })).error).toMatchObject({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    expect((await rpc('tasks/get', { taskId: 'no-such-task' })).error?.code).toBe(-32602);
    expect(await waitFor(() => gates.has('private'))).toBe(true);
    gates.get('private')!.resolve();
  });
});
