/**
 * Telemetry costs nothing without an SDK: with `@opentelemetry/api` installed but no SDK
 * registered, calls on the invoker and over MCP (direct path, SDK path, stdio) create no span
 * object at all — the API's no-op tracer is never asked for one. With only a meter provider,
 * the histograms are recorded and still no span is made. An SDK registered later is picked up by
 * the same invoker and endpoint. And in a plain Node process (outside Jest's module sandbox),
 * without an SDK, toolwright answers the same.
 *
 * The steps build on each other in file order: nothing is registered until the second describe.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  metrics,
  propagation,
  ProxyTracer,
  trace,
  type ProxyTracerProvider,
} from '@opentelemetry/api';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as MemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Server as SdkServer } from '@modelcontextprotocol/server';
import { createToolInvoker, type ToolInvoker } from '../../lib/core/index.js';
import { createMcpHttpHandler, serveStdio } from '../../lib/mcp/index.js';
import { mathTools } from '../fixtures/math-tools.js';
import {
  callBody,
  closeServer,
  eraHeaders,
  listBody,
  post,
  toolPayload,
} from '../fixtures/mcp-http.js';
import { registerTelemetry, tree, type TestTelemetry } from './support.js';

// ---------------------------------------------------------------------------------------------
// One invoker and one endpoint for the whole file, made before anything is registered.

const attributesCalls: unknown[] = [];
const invoker: ToolInvoker = createToolInvoker(
  mathTools(() => invoker),
  {
    telemetry: {
      recordArguments: true,
      recordResults: true,
      attributes: (context) => {
        attributesCalls.push(context);
        return { 'app.tenant.id': 'acme' };
      },
    },
  },
);
const handler = createMcpHttpHandler(invoker);
let server: HttpServer;
let mcpUrl: string;

beforeAll(async () => {
  server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await handler.close({ graceMs: 0 });
  await invoker.close({ graceMs: 0 });
  await closeServer(server);
});

/** Every kind of call the file makes, on each surface; returns what they answered. */
async function callEverything() {
  const answers: Record<string, unknown> = {};
  const progress: unknown[] = [];
  answers.invoke = await invoker.invoke(
    'outer',
    { n: 2 },
    { transport: 'AGENT', toolCallId: 'call-1', onProgress: (update) => progress.push(update) },
  );
  answers.progress = progress;
  answers.failure = await invoker.invoke('reserve', { seat: 'A1' }, { transport: 'AGENT' });
  answers.invalid = await invoker.invoke('outer', { n: 'two' }, { transport: 'AGENT' });

  const connect = jest.spyOn(SdkServer.prototype, 'connect');
  try {
    // The direct path, both eras; then the SDK path (a progress token, a traceparent).
    answers.directLegacy = toolPayload(
      await post(mcpUrl, callBody('legacy', 'outer', { n: 1 }, 1), eraHeaders('legacy')),
    );
    answers.directModern = toolPayload(
      await post(
        mcpUrl,
        callBody('modern', 'outer', { n: 1 }, 'r-1'),
        eraHeaders('modern', 'tools/call', 'outer'),
      ),
    );
    answers.directList = (
      await post(mcpUrl, listBody('legacy', 2), eraHeaders('legacy', 'tools/list'))
    ).messages?.[0].result.tools.length;
    answers.directPath = connect.mock.calls.length === 0;
    answers.sdkPath = toolPayload(
      await post(
        mcpUrl,
        callBody('legacy', 'outer', { n: 1 }, 3, {
          progressToken: 'p-1',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        }),
        eraHeaders('legacy'),
      ),
    );
    answers.sdkError = toolPayload(
      await post(
        mcpUrl,
        callBody('legacy', 'reserve', { seat: 'B2' }, 4, { progressToken: 'p-2' }),
        eraHeaders('legacy'),
      ),
    );
    answers.throughSdk = connect.mock.calls.length;
  } finally {
    connect.mockRestore();
  }

  // A 2026-era client over HTTP.
  const client = new ClientV2(
    { name: 'no-sdk', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new HttpV2(new URL(mcpUrl)));
  answers.clientCall = (await client.callTool({ name: 'outer', arguments: { n: 5 } })).content;
  await client.close();

  // stdio, a 2025-era client over an in-memory pair.
  const [clientSide, serverSide] = MemoryV1.createLinkedPair();
  const stdio = serveStdio(invoker, { transport: serverSide as never });
  const stdioClient = new ClientV1({ name: 'no-sdk', version: '1.0.0' });
  await stdioClient.connect(clientSide as never);
  answers.stdioCall = (await stdioClient.callTool({ name: 'outer', arguments: { n: 6 } })).content;
  await stdioClient.close();
  await stdio.close();
  return answers;
}

/** What `callEverything` answers, whatever is registered. */
const EVERYTHING = {
  invoke: { ok: true, data: { outer: { doubled: 4 } } },
  progress: [{ progress: 1, total: 1 }],
  failure: {
    ok: false,
    error: { code: 'CONFLICT', message: 'Seat A1 is taken', retryable: false },
  },
  invalid: {
    ok: false,
    error: expect.objectContaining({ code: 'VALIDATION_ERROR' }),
  },
  directLegacy: { isError: false, json: { outer: { doubled: 2 } } },
  directModern: { isError: false, json: { outer: { doubled: 2 } } },
  directList: 3,
  directPath: true,
  sdkPath: { isError: false, json: { outer: { doubled: 2 } } },
  sdkError: {
    isError: true,
    json: { error: 'CONFLICT', message: 'Seat B2 is taken', retryable: false },
  },
  throughSdk: 2,
  clientCall: [{ type: 'text', text: '{"outer":{"doubled":10}}' }],
  stdioCall: [{ type: 'text', text: '{"outer":{"doubled":12}}' }],
};

/**
 * Spies on everything of the API that makes or looks for a span: the no-op tracer and its
 * provider, the proxy tracer, the trace helpers that wrap a span context, the propagator, and
 * the no-op meter's histograms.
 */
function spyOnSpanMaking() {
  const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  const noopTracer = delegate.getTracer('probe');
  const noopMeter = metrics.getMeterProvider().getMeter('probe');
  const spies = {
    'NoopTracerProvider.getTracer': jest.spyOn(Object.getPrototypeOf(delegate), 'getTracer'),
    'NoopTracer.startSpan': jest.spyOn(Object.getPrototypeOf(noopTracer), 'startSpan'),
    'NoopTracer.startActiveSpan': jest.spyOn(Object.getPrototypeOf(noopTracer), 'startActiveSpan'),
    'ProxyTracer.startSpan': jest.spyOn(ProxyTracer.prototype, 'startSpan'),
    'ProxyTracer.startActiveSpan': jest.spyOn(ProxyTracer.prototype, 'startActiveSpan'),
    'trace.wrapSpanContext': jest.spyOn(trace, 'wrapSpanContext'),
    'trace.setSpan': jest.spyOn(trace, 'setSpan'),
    'propagation.extract': jest.spyOn(propagation, 'extract'),
    'NoopMeter.createHistogram': jest.spyOn(Object.getPrototypeOf(noopMeter), 'createHistogram'),
  };
  return {
    counts: () =>
      Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length])),
    restore: () => Object.values(spies).forEach((spy) => spy.mockRestore()),
  };
}

const NOTHING_MADE = {
  'NoopTracerProvider.getTracer': 0,
  'NoopTracer.startSpan': 0,
  'NoopTracer.startActiveSpan': 0,
  'ProxyTracer.startSpan': 0,
  'ProxyTracer.startActiveSpan': 0,
  'trace.wrapSpanContext': 0,
  'trace.setSpan': 0,
  'propagation.extract': 0,
  'NoopMeter.createHistogram': 0,
};

// ---------------------------------------------------------------------------------------------

describe('with no SDK registered', () => {
  it('every call succeeds and no span object is created: invoker, MCP direct and SDK path, stdio', async () => {
    // Nothing is registered: the global provider answers the API's no-op delegate.
    const provider = trace.getTracerProvider() as ProxyTracerProvider;
    expect(provider.getDelegate().constructor.name).toBe('NoopTracerProvider');

    const spies = spyOnSpanMaking();
    try {
      expect(await callEverything()).toEqual(EVERYTHING);
      expect(spies.counts()).toEqual(NOTHING_MADE);
    } finally {
      spies.restore();
    }
    // Nor are the telemetry options consulted.
    expect(attributesCalls).toEqual([]);
  });

  it('the spies see a span when one is made (they would catch one)', () => {
    const spies = spyOnSpanMaking();
    try {
      trace.getTracer('probe').startSpan('made by the test').end();
      expect(spies.counts()).toMatchObject({
        'ProxyTracer.startSpan': 1,
        'NoopTracer.startSpan': 1,
      });
    } finally {
      spies.restore();
    }
  });
});

describe('with only a meter provider registered', () => {
  let telemetry: TestTelemetry;
  beforeAll(async () => {
    telemetry = registerTelemetry({ tracing: false });
    await telemetry.reset();
  });

  it('the three histograms are recorded by the invoker and endpoint made before, and still no span is made', async () => {
    const spies = spyOnSpanMaking();
    try {
      expect(await callEverything()).toEqual(EVERYTHING);
      const made = spies.counts();
      // The SDK's meter makes the histograms; nothing of tracing is touched.
      expect({ ...made, 'NoopMeter.createHistogram': 0 }).toEqual(NOTHING_MADE);
    } finally {
      spies.restore();
    }
    expect(await telemetry.spans()).toEqual([]);

    const collected = await telemetry.histograms();
    const tool = collected.get('toolwright.tool.call.duration');
    expect(tool?.points.map(({ attributes }) => attributes)).toEqual(
      expect.arrayContaining([
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'outer',
          'toolwright.transport': 'MCP',
        },
        {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'reserve',
          'toolwright.transport': 'AGENT',
          'error.type': 'CONFLICT',
        },
      ]),
    );
    const conventions = collected.get('gen_ai.execute_tool.duration');
    expect(conventions?.points.map(({ attributes }) => attributes)).toEqual(
      expect.arrayContaining([
        { 'gen_ai.tool.name': 'outer', 'gen_ai.tool.type': 'function' },
        { 'gen_ai.tool.name': 'reserve', 'gen_ai.tool.type': 'function', 'error.type': 'CONFLICT' },
      ]),
    );
    const mcp = collected.get('mcp.server.operation.duration');
    expect(mcp?.points.map(({ attributes }) => attributes)).toEqual(
      expect.arrayContaining([
        {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'outer',
          'gen_ai.operation.name': 'execute_tool',
          'mcp.protocol.version': '2025-06-18',
          'network.transport': 'tcp',
          'network.protocol.name': 'http',
          'network.protocol.version': '1.1',
        },
        {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'outer',
          'gen_ai.operation.name': 'execute_tool',
          'mcp.protocol.version': '2025-11-25',
          'network.transport': 'pipe',
        },
      ]),
    );
    // Still no span: the attributes function (a span's) never ran.
    expect(attributesCalls).toEqual([]);
  });

  describe('then a tracer provider registered too', () => {
    beforeAll(async () => {
      trace.setGlobalTracerProvider(telemetry.tracerProvider);
      await telemetry.reset();
    });
    afterAll(() => telemetry.shutdown());

    it('the same invoker and endpoint now record their spans', async () => {
      expect(await callEverything()).toEqual(EVERYTHING);
      const spans = await telemetry.toolwrightSpans();
      const direct = spans.filter(
        (span) =>
          span.attributes['jsonrpc.request.id'] === '1' &&
          span.attributes['network.transport'] === 'tcp',
      );
      expect(direct.map(({ name }) => name)).toEqual(['tools/call outer']);
      const directTrace = spans.filter(
        (span) => span.spanContext().traceId === direct[0].spanContext().traceId,
      );
      expect(tree(directTrace)).toEqual([
        'tools/call outer',
        '  execute_tool outer',
        '    execute_tool inner',
      ]);
      expect(spans.filter((span) => span.name === 'execute_tool outer')).toHaveLength(7);
      expect(spans.filter((span) => span.name === 'tools/call outer')).toHaveLength(5);
      const invoked = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'call-1');
      expect(invoked?.attributes).toMatchObject({
        'gen_ai.tool.call.arguments': '{"n":2}',
        'gen_ai.tool.call.result': '{"outer":{"doubled":4}}',
        'app.tenant.id': 'acme',
      });
      expect(attributesCalls.length).toBeGreaterThan(0);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('in a plain Node process without an SDK', () => {
  /** Runs test/fixtures/no-otel-script.ts in a child Node process. */
  function runScript(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
    const args = ['--import', 'tsx', 'test/fixtures/no-otel-script.ts'];
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: process.cwd(), env });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  const ANSWERS = {
    invoked: { ok: true, data: { outer: { doubled: 4 } } },
    failed: {
      ok: false,
      error: { code: 'CONFLICT', message: 'Seat A1 is taken', retryable: false },
    },
    progress: [{ progress: 1, total: 1 }],
    mcpDirect: {
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: '{"outer":{"doubled":6}}' }] },
    },
    mcpSdk: {
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: '{"outer":{"doubled":6}}' }] },
    },
  };

  it('the invoker and the MCP endpoint work, with the API a plain static import', async () => {
    const run = await runScript();
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ apiImport: 'loaded', ...ANSWERS });
  });
});
