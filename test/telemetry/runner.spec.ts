/**
 * The `execute_tool` span, the `toolwright.tool.call.duration` and `gen_ai.execute_tool.duration`
 * histograms and the instrumentation scope (name and version) of the core invoker:
 * the exact span of a success and of each failure code the runner produces, the telemetry
 * options, span events, parents (explicit, enclosing call, active context), 1,000 concurrent
 * calls under their own parents, and the CLI surface. An SDK with in-memory exporters is
 * registered for this file (test/telemetry/support.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import { runCliCommand } from '../../lib/cli/cli-commands.js';
import { inputPending } from '../../lib/core/asking.js';
import {
  ToolError,
  createToolInvoker,
  defineRuntimeTool,
  type ToolCallInfo,
  type ToolInvokerOptions,
  type RuntimeTool,
} from '../../lib/core/index.js';
import { deferred, sleep } from '../fixtures/timing.js';
import {
  only,
  PACKAGE_VERSION,
  parentId,
  recordingLogger,
  registerTelemetry,
  remoteContext,
  remoteSpanContext,
  spanId,
  spanText,
  summary,
  traceId,
  tree,
  type TestTelemetry,
} from './support.js';

// ---------------------------------------------------------------------------------------------
// Tools.

const identity = (serviceName: string, action: string, method: 'GET' | 'POST' = 'POST') => ({
  serviceName,
  action,
  method,
});

const getOrder = defineRuntimeTool({
  description: 'Fetch one order',
  identity: identity('orders', 'get', 'GET'),
  input: z.object({ id: z.string().min(2), note: z.string().optional() }),
  output: z.object({ id: z.string(), total: z.number() }),
  handler: async ({ input }) => {
    await sleep(1);
    return { id: input.id, total: 42 };
  },
});

const findOrder = defineRuntimeTool({
  description: 'Find an order',
  identity: identity('orders', 'find', 'GET'),
  input: z.object({ id: z.string() }),
  handler: ({ input }) => {
    throw new ToolError('NOT_FOUND', { message: `No order ${input.id}` });
  },
});

const reserveOrder = defineRuntimeTool({
  description: 'Reserve an order',
  identity: identity('orders', 'reserve'),
  input: z.object({ id: z.string() }),
  handler: async ({ input }) => {
    await sleep(1);
    throw new ToolError('CONFLICT', {
      message: `Order ${input.id} is locked`,
      details: { id: input.id },
      hint: 'Retry later',
    });
  },
});

const guarded = defineRuntimeTool({
  description: 'Refused by the guard',
  identity: identity('ops', 'guarded'),
  input: z.object({}),
  handler: () => ({ ran: true }),
});

const writeOrder = defineRuntimeTool({
  description: 'Write an order',
  identity: identity('orders', 'write'),
  input: z.object({}),
  scopes: ['orders:write'],
  handler: () => ({ written: true }),
});

const slow = defineRuntimeTool({
  description: 'Outlive its timeout',
  identity: identity('jobs', 'slow'),
  input: z.object({}),
  timeoutMs: 30,
  handler: ({ signal }) =>
    new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'))),
});

const waitStarted = { current: deferred() };
const wait = defineRuntimeTool({
  description: 'Wait until cancelled',
  identity: identity('jobs', 'wait'),
  input: z.object({}),
  handler: ({ signal }) =>
    new Promise((resolve) => {
      signal.addEventListener('abort', () => resolve('late'));
      waitStarted.current.resolve();
    }),
});

const boom = defineRuntimeTool({
  description: 'Fail unexpectedly',
  identity: identity('ops', 'boom'),
  input: z.object({}),
  handler: () => {
    throw new Error('secret db password');
  },
});

const badOutput = defineRuntimeTool({
  description: 'Return what its schema refuses',
  identity: identity('ops', 'bad_output'),
  input: z.object({}),
  output: z.object({ n: z.number() }),
  handler: () => ({ n: 'secret-shaped output' }) as never,
});

const progress = defineRuntimeTool({
  description: 'Report progress and log',
  identity: identity('jobs', 'run'),
  input: z.object({}),
  handler: ({ reportProgress, log }) => {
    reportProgress({ progress: 1, total: 3, message: 'step 1' });
    reportProgress({ progress: 2 });
    reportProgress({ message: 'almost' });
    log.info('working', { secret: 'log data stays out' });
    log.warning('careful');
    log.error('bad', 42);
    return { done: true };
  },
});

const cliEcho = defineRuntimeTool({
  description: 'Echo on the command line',
  identity: identity('cli', 'echo', 'GET'),
  input: z.object({ text: z.string() }),
  transports: ['CLI'],
  handler: ({ input }) => ({ text: input.text }),
});

const ALL_TOOLS: RuntimeTool[] = [
  getOrder,
  findOrder,
  reserveOrder,
  guarded,
  writeOrder,
  slow,
  wait,
  boom,
  badOutput,
  progress,
  cliEcho,
];

/** An invoker over `tools` that records each finished call's info (its id, depth, …). */
function recordingInvoker(tools: RuntimeTool[] = ALL_TOOLS, options: ToolInvokerOptions = {}) {
  const calls: ToolCallInfo[] = [];
  const { lines, logger } = recordingLogger();
  const invoker = createToolInvoker(tools, {
    logger,
    guards: [{ canActivate: ({ tool }) => tool.name !== 'ops_guarded' }],
    hooks: { afterToolCall: ({ call }) => void calls.push(call) },
    ...options,
  });
  /** The info of the one finished call of a tool. */
  const callOf = (name: string) => {
    const found = calls.filter((call) => call.name === name);
    if (found.length !== 1) throw new Error(`${found.length} calls of ${name}`);
    return found[0];
  };
  return { invoker, calls, callOf, log: lines };
}

/** The attributes every `execute_tool` span has, for a call. */
function baseAttributes(call: ToolCallInfo, description: string) {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': call.id,
    'gen_ai.tool.description': description,
    'toolwright.call.id': call.id,
    'toolwright.transport': call.transport,
    'toolwright.source': call.source,
    'toolwright.call.depth': call.depth,
  };
}

/** The span of a failed call: status ERROR with the public message, `error.type`, nothing else. */
function failedSpan(call: ToolCallInfo, description: string, code: string, message: string) {
  return {
    name: `execute_tool ${call.name}`,
    kind: SpanKind.INTERNAL,
    status: { code: SpanStatusCode.ERROR, message },
    attributes: { ...baseAttributes(call, description), 'error.type': code },
    events: [],
    links: [],
  };
}

const CALL_ID = /^[0-9a-f]{12}-[0-9a-z]+$/;
const TOOL_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];

// Made before the SDK is registered (beforeAll below): the invoker picks the SDK up when it
// appears, as an application's invoker made before its tracing setup does.
const main = recordingInvoker();

let telemetry: TestTelemetry;
const tracer = trace.getTracer('test');

beforeAll(() => {
  telemetry = registerTelemetry();
});
afterAll(() => telemetry.shutdown());
beforeEach(async () => {
  main.calls.length = 0;
  main.log.length = 0;
  await telemetry.reset();
});

// ---------------------------------------------------------------------------------------------

describe('the execute_tool span of a successful call', () => {
  it('has exactly the conventions’ name, kind and attributes, status unset, no events', async () => {
    const result = await main.invoker.invoke(
      'orders_get',
      { id: 'o-1' },
      { transport: 'AGENT', context: { tenantId: 'acme' } },
    );
    expect(result).toEqual({ ok: true, data: { id: 'o-1', total: 42 } });

    const call = main.callOf('orders_get');
    expect(call.id).toMatch(CALL_ID);
    const spans = await telemetry.spans();
    expect(spans.map(summary)).toEqual([
      {
        name: 'execute_tool orders_get',
        kind: SpanKind.INTERNAL,
        status: { code: SpanStatusCode.UNSET },
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'orders_get',
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.id': call.id,
          'gen_ai.tool.description': 'Fetch one order',
          'toolwright.call.id': call.id,
          'toolwright.transport': 'AGENT',
          'toolwright.source': 'internal',
          'toolwright.call.depth': 0,
        },
        events: [],
        links: [],
      },
    ]);
    expect(spans[0].instrumentationScope.name).toBe('toolwright');
    expect(spans[0].ended).toBe(true);
    // No active context: a root span of its own trace.
    expect(spans[0].parentSpanContext).toBeUndefined();
  });

  it("records the transport and source of the call, and the model's tool-call id when given", async () => {
    await main.invoker.invoke(
      'orders_get',
      { id: 'o-2' },
      { transport: 'MCP', source: 'rest', toolCallId: 'model-call-7' },
    );
    const call = main.callOf('orders_get');
    const [span] = await telemetry.spans();
    expect(span.attributes).toEqual({
      ...baseAttributes(call, 'Fetch one order'),
      'gen_ai.tool.call.id': 'model-call-7',
      'toolwright.transport': 'MCP',
      'toolwright.source': 'rest',
    });
    expect(span.attributes['toolwright.call.id']).not.toBe('model-call-7');
  });

  it('records the CLI surface: transport CLI, source cli', async () => {
    const out = { text: '', write: (chunk: string) => void (out.text += chunk) };
    const code = await runCliCommand(
      main.invoker,
      { command: 'call', name: 'cli_echo', json: true, input: { text: 'hi' } },
      { stdout: out, stderr: out },
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.text)).toEqual({ text: 'hi' });
    const call = main.callOf('cli_echo');
    expect(summary(only(await telemetry.spans(), 'execute_tool cli_echo'))).toEqual({
      name: 'execute_tool cli_echo',
      kind: SpanKind.INTERNAL,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        ...baseAttributes(call, 'Echo on the command line'),
        'toolwright.transport': 'CLI',
        'toolwright.source': 'cli',
      },
      events: [],
      links: [],
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('the execute_tool span of each failure code', () => {
  const cases: Array<{
    title: string;
    tool: RuntimeTool;
    code: string;
    message: string;
    run: () => Promise<unknown>;
  }> = [
    {
      title: 'bad input',
      tool: getOrder,
      code: 'VALIDATION_ERROR',
      message: 'Invalid input: id: Invalid input: expected string, received number',
      run: () => main.invoker.invoke('orders_get', { id: 5 }, { transport: 'AGENT' }),
    },
    {
      title: 'a guard refuses',
      tool: guarded,
      code: 'FORBIDDEN',
      message: 'The call to "ops_guarded" was refused by a guard.',
      run: () => main.invoker.invoke('ops_guarded', {}, { transport: 'AGENT' }),
    },
    {
      title: 'the principal lacks the tool’s scopes',
      tool: writeOrder,
      code: 'FORBIDDEN',
      message: 'The call to "orders_write" needs the scopes orders:write.',
      run: () =>
        main.invoker.invoke(
          'orders_write',
          {},
          {
            transport: 'AGENT',
            context: {
              principal: {
                clientId: 'cron',
                subject: 'alice@example.com',
                scopes: ['orders:read'],
              },
            },
          },
        ),
    },
    {
      title: 'the handler throws NOT_FOUND',
      tool: findOrder,
      code: 'NOT_FOUND',
      message: 'No order o-404',
      run: () => main.invoker.invoke('orders_find', { id: 'o-404' }, { transport: 'AGENT' }),
    },
    {
      title: 'the handler throws CONFLICT',
      tool: reserveOrder,
      code: 'CONFLICT',
      message: 'Order o-1 is locked',
      run: () => main.invoker.invoke('orders_reserve', { id: 'o-1' }, { transport: 'AGENT' }),
    },
    {
      title: 'the tool’s timeoutMs passes',
      tool: slow,
      code: 'REQUEST_TIMEOUT',
      message: 'Tool "jobs_slow" did not finish within 30 ms.',
      run: () => main.invoker.invoke('jobs_slow', {}, { transport: 'AGENT' }),
    },
    {
      title: 'the caller’s signal aborts',
      tool: wait,
      code: 'REQUEST_ABORTED',
      message: 'The call to "jobs_wait" was cancelled.',
      run: async () => {
        waitStarted.current = deferred();
        const controller = new AbortController();
        const pending = main.invoker.invoke(
          'jobs_wait',
          {},
          { transport: 'AGENT', signal: controller.signal },
        );
        await waitStarted.current.promise;
        controller.abort();
        return pending;
      },
    },
    {
      title: 'the handler throws an Error',
      tool: boom,
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
      run: () => main.invoker.invoke('ops_boom', {}, { transport: 'AGENT' }),
    },
    {
      title: 'the output does not match its schema',
      tool: badOutput,
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
      run: () => main.invoker.invoke('ops_bad_output', {}, { transport: 'AGENT' }),
    },
  ];

  it.each(cases)('$code: $title', async ({ tool, code, message, run }) => {
    const result = (await run()) as { ok: boolean; error: { code: string; message: string } };
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ code, message });

    const call = main.callOf(tool.name);
    const spans = await telemetry.spans();
    expect(spans.map(summary)).toEqual([failedSpan(call, tool.description, code, message)]);
  });

  it('INTERNAL_SERVER_ERROR: no stack, no exception event, no masked text anywhere in the span', async () => {
    await main.invoker.invoke('ops_boom', {}, { transport: 'AGENT' });
    await main.invoker.invoke('ops_bad_output', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      const text = spanText(span);
      expect(text).not.toContain('secret');
      expect(text).not.toContain('Error:');
      expect(text).not.toMatch(/\bat .*:\d+:\d+/);
      expect(span.events).toEqual([]);
      expect(Object.keys(span.attributes).filter((key) => key.startsWith('exception.'))).toEqual(
        [],
      );
    }
    // The text went to the invoker's log, as before.
    expect(main.log.map(({ message }) => message)).toEqual([
      expect.stringContaining('Tool "ops_boom" failed unexpectedly'),
      expect.stringContaining('Tool "ops_bad_output" failed unexpectedly'),
    ]);
  });

  it('FORBIDDEN for missing scopes records nothing of the principal', async () => {
    await cases.find(({ tool }) => tool === writeOrder)!.run();
    const [span] = await telemetry.spans();
    expect(spanText(span)).not.toContain('alice');
    expect(spanText(span)).not.toContain('orders:read');
  });

  it('SERVICE_UNAVAILABLE: a call after invoker.close(), and a running call the shutdown ends', async () => {
    const closing = recordingInvoker();
    waitStarted.current = deferred();
    const running = closing.invoker.invoke('jobs_wait', {}, { transport: 'AGENT' });
    await waitStarted.current.promise;
    await closing.invoker.close({ graceMs: 0 });
    const after = await closing.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });

    const message = 'The application is shutting down; retry the call.';
    expect(await running).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(after).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE', message } });
    const spans = await telemetry.spans();
    expect(summary(only(spans, 'execute_tool jobs_wait'))).toEqual(
      failedSpan(closing.callOf('jobs_wait'), wait.description, 'SERVICE_UNAVAILABLE', message),
    );
    expect(summary(only(spans, 'execute_tool orders_get'))).toEqual(
      failedSpan(
        closing.callOf('orders_get'),
        getOrder.description,
        'SERVICE_UNAVAILABLE',
        message,
      ),
    );
  });

  it('RECURSION_LIMIT: the call beyond maxDepth fails, each level its own span', async () => {
    const loop = defineRuntimeTool({
      description: 'Call itself',
      identity: identity('ops', 'loop'),
      input: z.object({}),
      handler: async () => {
        const inner = await deep.invoker.invoke('ops_loop', {}, { transport: 'AGENT' });
        return inner.ok ? { inner: inner.data } : { failed: inner.error.code };
      },
    });
    const deep = recordingInvoker([loop], { maxDepth: 1 });
    const result = await deep.invoker.invoke('ops_loop', {}, { transport: 'AGENT' });
    expect(result).toEqual({ ok: true, data: { inner: { failed: 'RECURSION_LIMIT' } } });

    const spans = await telemetry.spans();
    expect(tree(spans)).toEqual([
      'execute_tool ops_loop',
      '  execute_tool ops_loop',
      '    execute_tool ops_loop',
    ]);
    const byDepth = (depth: number) => {
      const call = deep.calls.find((candidate) => candidate.depth === depth)!;
      return {
        call,
        span: spans.find((span) => span.attributes['toolwright.call.id'] === call.id)!,
      };
    };
    const beyond = byDepth(2);
    expect(summary(beyond.span)).toEqual(
      failedSpan(
        beyond.call,
        'Call itself',
        'RECURSION_LIMIT',
        'Tool "ops_loop" was called at depth 2, beyond the limit of 1.',
      ),
    );
    for (const depth of [0, 1]) {
      const { call, span } = byDepth(depth);
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
      expect(span.attributes).toEqual(baseAttributes(call, 'Call itself'));
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('telemetry options', () => {
  it('recordArguments: the call’s arguments as JSON, on success and failure; {} when none', async () => {
    const { invoker, callOf } = recordingInvoker(ALL_TOOLS, {
      telemetry: { recordArguments: true },
    });
    await invoker.invoke('orders_get', { id: 'o-1', note: 'gift' }, { transport: 'AGENT' });
    await invoker.invoke('orders_reserve', { id: 'o-2' }, { transport: 'AGENT' });
    await invoker.invoke('jobs_run', undefined, { transport: 'AGENT' });
    const spans = await telemetry.spans();

    expect(only(spans, 'execute_tool orders_get').attributes).toEqual({
      ...baseAttributes(callOf('orders_get'), 'Fetch one order'),
      'gen_ai.tool.call.arguments': '{"id":"o-1","note":"gift"}',
    });
    expect(only(spans, 'execute_tool orders_reserve').attributes).toEqual({
      ...baseAttributes(callOf('orders_reserve'), 'Reserve an order'),
      'gen_ai.tool.call.arguments': '{"id":"o-2"}',
      'error.type': 'CONFLICT',
    });
    expect(only(spans, 'execute_tool jobs_run').attributes['gen_ai.tool.call.arguments']).toBe(
      '{}',
    );
    for (const span of spans) expect(span.attributes['gen_ai.tool.call.result']).toBeUndefined();
  });

  it('recordResults: the data of a success as JSON; nothing for a failure', async () => {
    const { invoker, callOf } = recordingInvoker(ALL_TOOLS, {
      telemetry: { recordResults: true },
    });
    await invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    await invoker.invoke('orders_reserve', { id: 'o-2' }, { transport: 'AGENT' });
    await invoker.invoke('ops_boom', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();

    expect(only(spans, 'execute_tool orders_get').attributes).toEqual({
      ...baseAttributes(callOf('orders_get'), 'Fetch one order'),
      'gen_ai.tool.call.result': '{"id":"o-1","total":42}',
    });
    expect(only(spans, 'execute_tool orders_reserve').attributes).toEqual({
      ...baseAttributes(callOf('orders_reserve'), 'Reserve an order'),
      'error.type': 'CONFLICT',
    });
    expect(only(spans, 'execute_tool ops_boom').attributes).toEqual({
      ...baseAttributes(callOf('ops_boom'), 'Fail unexpectedly'),
      'error.type': 'INTERNAL_SERVER_ERROR',
    });
    for (const span of spans) expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
  });

  it('attributes(context, call): added from the resolved context; undefined values left out; no principal', async () => {
    const received: Array<{ context: unknown; call: ToolCallInfo }> = [];
    const { invoker, callOf } = recordingInvoker(ALL_TOOLS, {
      resolveContext: () => ({ tenantId: 'acme', region: 'ambient' }),
      telemetry: {
        attributes: (callContext, call) => {
          received.push({ context: callContext, call });
          return {
            'app.tenant.id': callContext.tenantId as string,
            'app.region': callContext.region as string,
            'app.tool': call.name,
            'app.flag': true,
            'app.count': 3,
            'app.missing': undefined,
          };
        },
      },
    });
    const principal = { clientId: 'cron', subject: 'alice@example.com', scopes: ['orders:read'] };
    await invoker.invoke(
      'orders_get',
      { id: 'o-1' },
      { transport: 'AGENT', context: { region: 'eu', principal } },
    );
    const call = callOf('orders_get');
    const [span] = await telemetry.spans();
    expect(span.attributes).toEqual({
      ...baseAttributes(call, 'Fetch one order'),
      'app.tenant.id': 'acme',
      'app.region': 'eu',
      'app.tool': 'orders_get',
      'app.flag': true,
      'app.count': 3,
    });
    expect('app.missing' in span.attributes).toBe(false);
    expect(spanText(span)).not.toContain('alice');
    // It saw the context after resolution (the ambient one with the caller's merged over it).
    expect(received).toEqual([{ context: { tenantId: 'acme', region: 'eu', principal }, call }]);
  });

  it('attributes that throw: logged through the invoker’s logger, the span and the call unchanged', async () => {
    const failure = new Error('attributes broke');
    const { invoker, callOf, log } = recordingInvoker(ALL_TOOLS, {
      telemetry: {
        attributes: () => {
          throw failure;
        },
      },
    });
    const result = await invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    expect(result).toEqual({ ok: true, data: { id: 'o-1', total: 42 } });
    const [span] = await telemetry.spans();
    expect(summary(span)).toEqual({
      name: 'execute_tool orders_get',
      kind: SpanKind.INTERNAL,
      status: { code: SpanStatusCode.UNSET },
      attributes: baseAttributes(callOf('orders_get'), 'Fetch one order'),
      events: [],
      links: [],
    });
    expect(log).toEqual([
      {
        level: 'error',
        message: '[toolwright] telemetry attributes failed for "orders_get":',
        error: failure,
      },
    ]);
  });

  it('telemetry: false: no spans and no metrics, with an SDK registered', async () => {
    const outer = defineRuntimeTool({
      description: 'Call another tool',
      identity: identity('ops', 'outer'),
      input: z.object({}),
      handler: () => off.invoker.invokeOrThrow('orders_get', { id: 'o-1' }, { transport: 'AGENT' }),
    });
    const off = recordingInvoker([getOrder, reserveOrder, outer], { telemetry: false });
    await off.invoker.invoke('ops_outer', {}, { transport: 'AGENT' });
    await off.invoker.invoke('orders_reserve', { id: 'o-1' }, { transport: 'AGENT' });
    expect(off.calls.map(({ name }) => name)).toEqual([
      'orders_get',
      'ops_outer',
      'orders_reserve',
    ]);
    expect(await telemetry.spans()).toEqual([]);
    expect([...(await telemetry.histograms()).keys()]).toEqual([]);

    // The same calls on an invoker with telemetry on are recorded (the SDK is live).
    await main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    expect(await telemetry.spans()).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('span events', () => {
  it('progress as toolwright.progress, log lines as toolwright.log (level and message, no data)', async () => {
    const progressSeen: unknown[] = [];
    const logSeen: unknown[] = [];
    await main.invoker.invoke(
      'jobs_run',
      {},
      {
        transport: 'AGENT',
        onProgress: (update) => void progressSeen.push(update),
        onLog: (level, message, data) => void logSeen.push([level, message, data]),
      },
    );
    const [span] = await telemetry.spans();
    expect(summary(span).events).toEqual([
      {
        name: 'toolwright.progress',
        attributes: {
          'toolwright.progress.value': 1,
          'toolwright.progress.total': 3,
          'toolwright.progress.message': 'step 1',
        },
      },
      { name: 'toolwright.progress', attributes: { 'toolwright.progress.value': 2 } },
      { name: 'toolwright.progress', attributes: { 'toolwright.progress.message': 'almost' } },
      {
        name: 'toolwright.log',
        attributes: { 'toolwright.log.level': 'info', 'toolwright.log.message': 'working' },
      },
      {
        name: 'toolwright.log',
        attributes: { 'toolwright.log.level': 'warning', 'toolwright.log.message': 'careful' },
      },
      {
        name: 'toolwright.log',
        attributes: { 'toolwright.log.level': 'error', 'toolwright.log.message': 'bad' },
      },
    ]);
    expect(spanText(span)).not.toContain('log data stays out');
    // The caller's sinks still get everything.
    expect(progressSeen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2 },
      { message: 'almost' },
    ]);
    expect(logSeen).toEqual([
      ['info', 'working', { secret: 'log data stays out' }],
      ['warning', 'careful', undefined],
      ['error', 'bad', 42],
    ]);
  });

  it('records the events when the caller passes no sinks', async () => {
    await main.invoker.invoke('jobs_run', {}, { transport: 'AGENT' });
    const [span] = await telemetry.spans();
    expect(span.events.map(({ name }) => name)).toEqual([
      'toolwright.progress',
      'toolwright.progress',
      'toolwright.progress',
      'toolwright.log',
      'toolwright.log',
      'toolwright.log',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('parents', () => {
  /** An outer tool whose handler runs `body` (nested calls, spans of its own). */
  function nesting(body: (invoke: (name: string) => Promise<unknown>) => Promise<unknown>) {
    const leaf = defineRuntimeTool({
      description: 'A leaf',
      identity: identity('ops', 'leaf'),
      input: z.object({}),
      handler: () => ({ leaf: true }),
    });
    const outer = defineRuntimeTool({
      description: 'Run the body',
      identity: identity('ops', 'outer'),
      input: z.object({}),
      handler: async () => {
        await body((name) => recorded.invoker.invokeOrThrow(name, {}, { transport: 'AGENT' }));
        return { done: true };
      },
    });
    const recorded = recordingInvoker([leaf, outer]);
    return recorded;
  }

  it('a nested call’s span is a child of its parent call’s span, with depth 1', async () => {
    const { invoker, callOf } = nesting((invoke) => invoke('ops_leaf'));
    await invoker.invoke('ops_outer', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();
    expect(tree(spans)).toEqual(['execute_tool ops_outer', '  execute_tool ops_leaf']);
    const outer = only(spans, 'execute_tool ops_outer');
    const leaf = only(spans, 'execute_tool ops_leaf');
    expect(parentId(leaf)).toBe(spanId(outer));
    expect(traceId(leaf)).toBe(traceId(outer));
    expect(leaf.attributes).toEqual(baseAttributes(callOf('ops_leaf'), 'A leaf'));
    expect(leaf.attributes['toolwright.call.depth']).toBe(1);
    expect(callOf('ops_leaf').parentId).toBe(callOf('ops_outer').id);
  });

  it('spans the handler starts are children of its execute_tool span; calls inside them, their children', async () => {
    const { invoker } = nesting(async (invoke) => {
      await tracer.startActiveSpan('db query', async (span) => {
        await sleep(1);
        await invoke('ops_leaf');
        span.end();
      });
      tracer.startSpan('cache write').end();
    });
    await invoker.invoke('ops_outer', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();
    expect(tree(spans)).toEqual([
      'execute_tool ops_outer',
      '  db query',
      '    execute_tool ops_leaf',
      '  cache write',
    ]);
    expect(new Set(spans.map(traceId)).size).toBe(1);
  });

  it('a nested call made where the async context was lost is still under the enclosing call', async () => {
    const { invoker } = nesting((invoke) => context.with(ROOT_CONTEXT, () => invoke('ops_leaf')));
    await invoker.invoke('ops_outer', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();
    expect(tree(spans)).toEqual(['execute_tool ops_outer', '  execute_tool ops_leaf']);
    expect(traceId(only(spans, 'execute_tool ops_leaf'))).toBe(
      traceId(only(spans, 'execute_tool ops_outer')),
    );
  });

  it('the active context when there is no enclosing call', async () => {
    const request = tracer.startSpan('POST /orders');
    await context.with(trace.setSpan(context.active(), request), () =>
      main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' }),
    );
    request.end();
    const spans = await telemetry.spans();
    expect(tree(spans)).toEqual(['POST /orders', '  execute_tool orders_get']);
    expect(parentId(only(spans, 'execute_tool orders_get'))).toBe(request.spanContext().spanId);
  });

  it('an explicit traceContext wins over the active context', async () => {
    const remote = remoteSpanContext(1);
    await tracer.startActiveSpan('ambient', async (ambient) => {
      await main.invoker.invoke(
        'orders_get',
        { id: 'o-1' },
        { transport: 'AGENT', traceContext: remoteContext(remote) },
      );
      ambient.end();
    });
    const span = only(await telemetry.spans(), 'execute_tool orders_get');
    expect(span.parentSpanContext).toMatchObject({ spanId: remote.spanId, isRemote: true });
    expect(traceId(span)).toBe(remote.traceId);
  });

  it('an explicit traceContext wins over the enclosing call', async () => {
    const remote = remoteSpanContext(2);
    const leaf = defineRuntimeTool({
      description: 'A leaf',
      identity: identity('ops', 'leaf'),
      input: z.object({}),
      handler: () => ({ leaf: true }),
    });
    const outer = defineRuntimeTool({
      description: 'Hand a job on',
      identity: identity('ops', 'outer'),
      input: z.object({}),
      handler: () =>
        explicit.invokeOrThrow(
          'ops_leaf',
          {},
          { transport: 'AGENT', traceContext: remoteContext(remote) },
        ),
    });
    const explicit = createToolInvoker([leaf, outer]);
    await explicit.invoke('ops_outer', {}, { transport: 'AGENT' });
    const spans = await telemetry.spans();
    const leafSpan = only(spans, 'execute_tool ops_leaf');
    expect(parentId(leafSpan)).toBe(remote.spanId);
    expect(traceId(leafSpan)).toBe(remote.traceId);
    expect(leafSpan.attributes['toolwright.call.depth']).toBe(1);
    expect(traceId(only(spans, 'execute_tool ops_outer'))).not.toBe(remote.traceId);
  });

  // `traceContext` is typed `unknown`: a value that is not a Context (`null` from a message that
  // carried none) must not make `invoke` reject once tracing is on; it falls back to the default
  // parent (the enclosing call's span or the active context).
  it.each([
    ['null', null],
    ['an object that is not a Context', {}],
  ])('a traceContext that is %s falls back to the default parent', async (_label, value) => {
    const request = tracer.startSpan('POST /jobs');
    const result = await context
      .with(trace.setSpan(context.active(), request), () =>
        main.invoker.invoke(
          'orders_get',
          { id: 'o-1' },
          { transport: 'AGENT', traceContext: value },
        ),
      )
      .catch((error: unknown) => ({ rejected: String(error) }));
    request.end();
    expect(result).toEqual({ ok: true, data: { id: 'o-1', total: 42 } });
    const span = only(await telemetry.spans(), 'execute_tool orders_get');
    expect(parentId(span)).toBe(request.spanContext().spanId);
  });

  it('an SDK that throws while starting the span: logged, the call runs untraced and answers as usual', async () => {
    const { invoker, log } = recordingInvoker();
    const failure = new Error('context store broke');
    // A Context whose lookups throw: the SDK's startSpan reads the parent span through it.
    const hostile = {
      getValue: () => {
        throw failure;
      },
      setValue: () => hostile,
      deleteValue: () => hostile,
    };
    const result = await invoker.invoke(
      'orders_get',
      { id: 'o-1' },
      { transport: 'AGENT', traceContext: hostile },
    );
    expect(result).toEqual({ ok: true, data: { id: 'o-1', total: 42 } });
    expect(await telemetry.spans()).toEqual([]);
    expect(log).toEqual([
      {
        level: 'error',
        message: '[toolwright] telemetry failed for "orders_get":',
        error: failure,
      },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('concurrency', () => {
  it('1,000 concurrent calls, each started in its own parent span: every span under its own parent', async () => {
    const COUNT = 1000;
    const activeIn = new Map<string, string | undefined>();
    const activeSpanId = () => trace.getActiveSpan()?.spanContext().spanId;
    const leaf = defineRuntimeTool({
      description: 'A leaf',
      identity: identity('fan', 'leaf'),
      input: z.object({}),
      handler: async ({ context: callContext }) => {
        await new Promise((resolve) => setImmediate(resolve));
        activeIn.set(`leaf ${callContext.index}`, activeSpanId());
        return { index: callContext.index };
      },
    });
    const fan = defineRuntimeTool({
      description: 'Call a leaf',
      identity: identity('fan', 'out'),
      input: z.object({}),
      handler: async ({ context: callContext }) => {
        const before = activeSpanId();
        await new Promise((resolve) => setImmediate(resolve));
        const after = activeSpanId();
        if (before !== after) throw new Error(`active span changed in call ${callContext.index}`);
        activeIn.set(`fan ${callContext.index}`, after);
        return invoker.invokeOrThrow('fan_leaf', {}, { transport: 'AGENT', context: callContext });
      },
    });
    const invoker = createToolInvoker([leaf, fan], {
      telemetry: { attributes: (callContext) => ({ 'test.index': callContext.index as number }) },
    });

    const results = await Promise.all(
      Array.from({ length: COUNT }, (_, index) =>
        tracer.startActiveSpan('parent', { attributes: { 'test.index': index } }, (parent) =>
          invoker
            .invoke('fan_out', {}, { transport: 'AGENT', context: { index } })
            .finally(() => parent.end()),
        ),
      ),
    );
    expect(results.every((result) => result.ok)).toBe(true);

    const spans = await telemetry.spans();
    expect(spans).toHaveLength(3 * COUNT);
    const byName = (name: string) => {
      const map = new Map<number, ReadableSpan>();
      for (const span of spans.filter((candidate) => candidate.name === name)) {
        map.set(span.attributes['test.index'] as number, span);
      }
      expect(map.size).toBe(COUNT);
      return map;
    };
    const parents = byName('parent');
    const fans = byName('execute_tool fan_out');
    const leaves = byName('execute_tool fan_leaf');
    const misplaced: string[] = [];
    for (let index = 0; index < COUNT; index++) {
      const parent = parents.get(index)!;
      const fanSpan = fans.get(index)!;
      const leafSpan = leaves.get(index)!;
      if (parentId(fanSpan) !== spanId(parent)) misplaced.push(`fan ${index}`);
      if (parentId(leafSpan) !== spanId(fanSpan)) misplaced.push(`leaf ${index}`);
      if (traceId(fanSpan) !== traceId(parent) || traceId(leafSpan) !== traceId(parent)) {
        misplaced.push(`trace ${index}`);
      }
      // Each handler ran with its own call's span active.
      if (activeIn.get(`fan ${index}`) !== spanId(fanSpan)) misplaced.push(`active fan ${index}`);
      if (activeIn.get(`leaf ${index}`) !== spanId(leafSpan)) {
        misplaced.push(`active leaf ${index}`);
      }
    }
    expect(misplaced).toEqual([]);
    // No two calls share a span, and every parent began its own trace.
    expect(new Set(spans.map(spanId)).size).toBe(3 * COUNT);
    expect(new Set([...parents.values()].map(traceId)).size).toBe(COUNT);
  });
});

// ---------------------------------------------------------------------------------------------

describe('the toolwright.tool.call.duration histogram', () => {
  it('one point per tool and outcome, in seconds, with error.type only on failures', async () => {
    await main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    await main.invoker.invoke('orders_get', { id: 'o-2' }, { transport: 'AGENT' });
    await main.invoker.invoke('orders_reserve', { id: 'o-3' }, { transport: 'MCP' });
    await main.invoker.invoke('orders_get', { id: 5 }, { transport: 'AGENT' });

    const collected = await telemetry.histograms();
    // An in-process call records no MCP request.
    expect([...collected.keys()].sort()).toEqual([
      'gen_ai.execute_tool.duration',
      'toolwright.tool.call.duration',
    ]);
    const histogram = collected.get('toolwright.tool.call.duration');
    expect(histogram).toMatchObject({
      unit: 's',
      description: 'Duration of a tool call through the toolwright runner, on every surface.',
    });
    const points = histogram!.points.map(({ attributes, value }) => ({
      attributes,
      count: value.count,
    }));
    expect(points).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'orders_get',
            'toolwright.transport': 'AGENT',
          },
          count: 2,
        },
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'orders_reserve',
            'toolwright.transport': 'MCP',
            'error.type': 'CONFLICT',
          },
          count: 1,
        },
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'orders_get',
            'toolwright.transport': 'AGENT',
            'error.type': 'VALIDATION_ERROR',
          },
          count: 1,
        },
      ]),
    );
    expect(points).toHaveLength(3);
    for (const { value } of histogram!.points) {
      expect(value.buckets.boundaries).toEqual(TOOL_BUCKETS);
      expect(value.sum).toBeGreaterThan(0);
    }
  });
});

describe('the gen_ai.execute_tool.duration histogram (GenAI conventions)', () => {
  it('one point per tool and outcome: the tool’s name and type, error.type on failures, the conventions’ buckets', async () => {
    await main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    await main.invoker.invoke('orders_get', { id: 'o-2' }, { transport: 'MCP' });
    await main.invoker.invoke('orders_reserve', { id: 'o-3' }, { transport: 'MCP' });
    await main.invoker.invoke('orders_get', { id: 5 }, { transport: 'AGENT' });

    const histogram = (await telemetry.histograms()).get('gen_ai.execute_tool.duration');
    expect(histogram).toMatchObject({
      unit: 's',
      description: 'The duration of a single tool execution.',
    });
    const points = histogram!.points.map(({ attributes, value }) => ({
      attributes,
      count: value.count,
    }));
    // The conventions' attributes only: the transport stays on toolwright's own histogram.
    expect(points).toEqual(
      expect.arrayContaining([
        {
          attributes: { 'gen_ai.tool.name': 'orders_get', 'gen_ai.tool.type': 'function' },
          count: 2,
        },
        {
          attributes: {
            'gen_ai.tool.name': 'orders_reserve',
            'gen_ai.tool.type': 'function',
            'error.type': 'CONFLICT',
          },
          count: 1,
        },
        {
          attributes: {
            'gen_ai.tool.name': 'orders_get',
            'gen_ai.tool.type': 'function',
            'error.type': 'VALIDATION_ERROR',
          },
          count: 1,
        },
      ]),
    );
    expect(points).toHaveLength(3);
    for (const { value } of histogram!.points) {
      expect(value.buckets.boundaries).toEqual([
        0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
      ]);
      expect(value.sum).toBeGreaterThan(0);
    }
  });

  it('records the same duration as toolwright.tool.call.duration', async () => {
    await main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    const collected = await telemetry.histograms();
    const sumOf = (name: string) => collected.get(name)!.points[0].value.sum;
    expect(sumOf('gen_ai.execute_tool.duration')).toBe(sumOf('toolwright.tool.call.duration'));
  });
});

describe('the instrumentation scope', () => {
  it('is toolwright at the package’s version, for the tracer and the meter', async () => {
    expect(PACKAGE_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    await main.invoker.invoke('orders_get', { id: 'o-1' }, { transport: 'AGENT' });
    const [span] = await telemetry.spans();
    expect(span.instrumentationScope).toMatchObject({
      name: 'toolwright',
      version: PACKAGE_VERSION,
    });
    const collected = await telemetry.histograms();
    expect(collected.size).toBe(2);
    for (const histogram of collected.values()) {
      expect(histogram.scopeVersion).toBe(PACKAGE_VERSION);
    }
  });
});

describe('a round that stops at a question (INPUT_REQUIRED)', () => {
  it('is not a failure: status unset, no error.type on the span or the duration', async () => {
    const close = defineRuntimeTool({
      description: 'Close once confirmed',
      identity: identity('desk', 'close'),
      input: z.object({}),
      asks: { confirm: true },
      handler: async ({ confirm }) => ({ closed: await confirm('Close?') }),
    });
    const invoker = createToolInvoker([close]);
    // The caller takes the question to a later turn, as MCP's 2026 era and LangGraph do.
    const result = await invoker.invoke(
      'desk_close',
      {},
      {
        transport: 'AGENT',
        ask: ({ call }) => {
          throw inputPending(call.name);
        },
      },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'INPUT_REQUIRED' } });
    const span = only(await telemetry.toolwrightSpans(), 'execute_tool desk_close');
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.attributes['error.type']).toBeUndefined();
    const collected = await telemetry.histograms();
    const points = collected.get('toolwright.tool.call.duration')!.points;
    expect(points.map(({ attributes }) => attributes)).toEqual([
      {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'desk_close',
        'toolwright.transport': 'AGENT',
      },
    ]);
    const conventions = collected.get('gen_ai.execute_tool.duration')!.points;
    expect(conventions.map(({ attributes }) => attributes)).toEqual([
      { 'gen_ai.tool.name': 'desk_close', 'gen_ai.tool.type': 'function' },
    ]);
  });
});
