/**
 * The MCP SERVER span (`{method} {tool}`) and `mcp.server.operation.duration` of every request
 * the endpoint dispatches, and the tree each `tools/call` makes: HTTP server span → MCP request
 * → `execute_tool` → nested `execute_tool`, on Express and Fastify, with both client
 * generations, on the direct path and the SDK path; the client's `_meta.traceparent` as the
 * parent; JSON-RPC errors and `isError` results; the ToolsModule `telemetry` option; the
 * standalone `createMcpHttpHandler` and `serveStdio`; concurrent requests with their own
 * traceparents; and a client that gives up on a running call.
 *
 * The HTTP server spans are `@opentelemetry/instrumentation-http`'s own, its patch applied to
 * `node:http` by hand (see `instrumentHttp` in ./support.ts). Which path a request took is
 * checked with a spy on the SDK server's `connect` (the direct path makes no SDK server).
 */
import 'reflect-metadata';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  jest,
} from '@jest/globals';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport as MemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  Client as ClientV2,
  InMemoryTransport as MemoryV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Server as SdkServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  ToolError,
  ToolInvoker,
  ToolsModule,
  createToolInvoker,
  defineRuntimeTool,
} from '../../lib/index.js';
import type { ToolInvoker as CoreInvoker } from '../../lib/core/index.js';
import {
  createMcpHttpHandler,
  serveStdio,
  type McpHttpHandlerOptions,
} from '../../lib/mcp/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import {
  callBody,
  closeServer,
  type Era,
  eraHeaders,
  LEGACY_VERSION,
  listBody,
  MODERN_META,
  MODERN_VERSION,
  post,
} from '../fixtures/mcp-http.js';
import { deferred, waitFor } from '../fixtures/timing.js';
import {
  instrumentHttp,
  only,
  parentId,
  registerTelemetry,
  remoteSpanContext,
  spanId,
  summary,
  traceId,
  traceparentOf,
  tree,
  type TestTelemetry,
} from './support.js';

// ---------------------------------------------------------------------------------------------
// Tools: `outer` calls `inner` through the same invoker.

type Invoker = Pick<CoreInvoker, 'invokeOrThrow'>;

function telemetryTools(invoker: () => Invoker) {
  const inner = defineRuntimeTool({
    name: 'inner',
    description: 'Double a number',
    identity: { serviceName: 'math', action: 'double', method: 'GET' },
    input: z.object({ n: z.number() }),
    handler: ({ input }) => ({ doubled: input.n * 2 }),
  });
  const outer = defineRuntimeTool({
    name: 'outer',
    description: 'Call the inner tool',
    identity: { serviceName: 'math', action: 'outer', method: 'GET' },
    input: z.object({ n: z.number() }),
    handler: async ({ input, reportProgress }) => {
      reportProgress({ progress: 1, total: 2 });
      const inner = await invoker().invokeOrThrow('inner', { n: input.n }, { transport: 'AGENT' });
      return { outer: inner };
    },
  });
  const reserve = defineRuntimeTool({
    name: 'reserve',
    description: 'Reserve a seat',
    identity: { serviceName: 'seats', action: 'reserve', method: 'POST' },
    input: z.object({ seat: z.string() }),
    handler: ({ input }) => {
      throw new ToolError('CONFLICT', { message: `Seat ${input.seat} is taken` });
    },
  });
  return [inner, outer, reserve];
}

// ---------------------------------------------------------------------------------------------
// Clients of both generations, with `_meta` on a call.

const GENERATIONS = ['v1 (2025)', 'v2 (2026-07-28)'] as const;
type Generation = (typeof GENERATIONS)[number];
/** The protocol version each generation speaks to a dual server. */
const VERSION: Record<Generation, string> = {
  'v1 (2025)': '2025-11-25',
  'v2 (2026-07-28)': MODERN_VERSION,
};

interface CallOptions {
  meta?: Record<string, unknown>;
  onprogress?: (progress: { progress: number; total?: number }) => void;
  signal?: AbortSignal;
}

/** The request options of a call: progress handler and signal, when given. */
const requestOptions = ({ onprogress, signal }: CallOptions) =>
  onprogress || signal
    ? { ...(onprogress && { onprogress }), ...(signal && { signal }) }
    : undefined;

interface TestClient {
  callTool(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<any>;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'telemetry-test', version: '1.0.0' };

async function connect(generation: Generation, transport: unknown): Promise<TestClient> {
  const params = (name: string, args: Record<string, unknown>, meta?: CallOptions['meta']) => ({
    name,
    arguments: args,
    ...(meta && { _meta: meta }),
  });
  if (generation === 'v1 (2025)') {
    const client = new ClientV1(CLIENT_INFO);
    await client.connect(transport as never);
    return {
      callTool: (name, args = {}, options = {}) =>
        client.callTool(params(name, args, options.meta), undefined, requestOptions(options)),
      listTools: () => client.listTools(),
      close: () => client.close(),
    };
  }
  const client = new ClientV2(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: MODERN_VERSION } },
  });
  await client.connect(transport as never);
  return {
    callTool: (name, args = {}, options = {}) =>
      client.callTool(params(name, args, options.meta), requestOptions(options)),
    listTools: () => client.listTools(),
    close: () => client.close(),
  };
}

const connectHttp = (generation: Generation, url: string) =>
  connect(
    generation,
    generation === 'v1 (2025)' ? new HttpV1(new URL(url)) : new HttpV2(new URL(url)),
  );

/** The rejection of a call, or a failure if it resolved. */
const rejection = (call: Promise<unknown>) =>
  call.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error as { code?: number; message: string },
  );

// ---------------------------------------------------------------------------------------------
// Expected spans.

const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The attributes of an MCP server span (and of its duration point) that do not vary per request. */
function mcpAttributes(method: string, version: string, tool?: string) {
  return {
    'mcp.method.name': method,
    ...(tool !== undefined && {
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
    }),
    'mcp.protocol.version': version,
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
  };
}

/** The request attributes an HTTP server span gives the MCP span: the peer of its socket. */
function clientOf(http: ReadableSpan) {
  expect(http.attributes['network.peer.address']).toBe('127.0.0.1');
  expect(http.attributes['network.peer.port']).toEqual(expect.any(Number));
  return {
    'client.address': '127.0.0.1',
    'client.port': http.attributes['network.peer.port'],
  };
}

/** The SERVER span of a successful `tools/call outer` over HTTP, its HTTP span `http`. */
function outerServerSpan(version: string, http: ReadableSpan) {
  return {
    name: 'tools/call outer',
    kind: SpanKind.SERVER,
    status: { code: SpanStatusCode.UNSET },
    attributes: {
      ...mcpAttributes('tools/call', version, 'outer'),
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      ...clientOf(http),
    },
    events: [],
    links: [],
  };
}

/** The execute_tool spans of one `outer` call (MCP) and its nested `inner` call (AGENT). */
function expectToolSpans(spans: readonly ReadableSpan[], serverSpan: ReadableSpan) {
  const outer = only(spans, 'execute_tool outer');
  const inner = only(spans, 'execute_tool inner');
  expect(parentId(outer)).toBe(spanId(serverSpan));
  expect(parentId(inner)).toBe(spanId(outer));
  expect(traceId(outer)).toBe(traceId(serverSpan));
  expect(traceId(inner)).toBe(traceId(serverSpan));
  expect(summary(outer)).toEqual({
    name: 'execute_tool outer',
    kind: SpanKind.INTERNAL,
    status: { code: SpanStatusCode.UNSET },
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'outer',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': outer.attributes['toolwright.call.id'],
      'gen_ai.tool.description': 'Call the inner tool',
      'toolwright.call.id': expect.stringMatching(/^[0-9a-f]{12}-[0-9a-z]+$/),
      'toolwright.transport': 'MCP',
      'toolwright.source': 'mcp',
      'toolwright.call.depth': 0,
    },
    events: [
      {
        name: 'toolwright.progress',
        attributes: { 'toolwright.progress.value': 1, 'toolwright.progress.total': 2 },
      },
    ],
    links: [],
  });
  expect(inner.attributes).toEqual({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'inner',
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': inner.attributes['toolwright.call.id'],
    'gen_ai.tool.description': 'Double a number',
    'toolwright.call.id': expect.stringMatching(/^[0-9a-f]{12}-[0-9a-z]+$/),
    'toolwright.transport': 'AGENT',
    'toolwright.source': 'internal',
    'toolwright.call.depth': 1,
  });
  expect(inner.status).toEqual({ code: SpanStatusCode.UNSET });
}

/** The spans of the trace a span is in. */
const traceOf = (spans: readonly ReadableSpan[], span: ReadableSpan) =>
  spans.filter((candidate) => traceId(candidate) === traceId(span));

/** The parent of a span among the spans (its HTTP server span, for an MCP request); fails without one. */
function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan {
  const parent = spans.find((candidate) => spanId(candidate) === parentId(span));
  if (!parent) throw new Error(`no parent of ${span.name} among the spans`);
  return parent;
}

const HTTP_TREE = [
  'POST',
  '  tools/call outer',
  '    execute_tool outer',
  '      execute_tool inner',
];

// ---------------------------------------------------------------------------------------------

let telemetry: TestTelemetry;
let unpatchHttp: () => void;

beforeAll(() => {
  telemetry = registerTelemetry();
  unpatchHttp = instrumentHttp();
});
afterAll(async () => {
  unpatchHttp();
  await telemetry.shutdown();
});

describe.each(ADAPTERS)('a Nest app on %s', (adapter) => {
  const apps = new TestApps();
  let mcpUrl: string;

  beforeAll(async () => {
    const nest: { invoker?: ToolInvoker } = {};
    const { app, url } = await apps.listen(
      { imports: [ToolsModule.forRoot({ registry: telemetryTools(() => nest.invoker!) })] },
      adapter,
    );
    nest.invoker = app.get(ToolInvoker);
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  describe.each(GENERATIONS)('%s client', (generation) => {
    let client: TestClient;
    let connectSpy: ReturnType<typeof jest.spyOn>;

    beforeAll(async () => {
      client = await connectHttp(generation, mcpUrl);
    });
    afterAll(() => client.close());
    beforeEach(async () => {
      await telemetry.reset();
      connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
    });
    afterEach(() => connectSpy.mockRestore());

    /** The spans of the `tools/call outer` request: its trace, its HTTP span and its server span. */
    async function outerRequest() {
      const spans = await telemetry.spans();
      const server = only(spans, 'tools/call outer');
      const http = parentOf(spans, server);
      return { spans, server, http };
    }

    it('direct path: POST → tools/call outer → execute_tool outer → execute_tool inner', async () => {
      const result = await client.callTool('outer', { n: 2 });
      expect(result.structuredContent ?? JSON.parse(result.content[0].text)).toEqual({
        outer: { doubled: 4 },
      });
      expect(connectSpy).not.toHaveBeenCalled();

      const { spans, server, http } = await outerRequest();
      expect(tree(traceOf(spans, server))).toEqual(HTTP_TREE);
      expect(http).toMatchObject({ name: 'POST', kind: SpanKind.SERVER });
      expect(http.attributes['url.path']).toBe('/mcp');
      expect(http.parentSpanContext).toBeUndefined();
      expect(summary(server)).toEqual(outerServerSpan(VERSION[generation], http));
      expectToolSpans(spans, server);
    });

    it('SDK path (a progress token): the same tree', async () => {
      const updates: unknown[] = [];
      await client.callTool('outer', { n: 3 }, { onprogress: (update) => updates.push(update) });
      expect(updates).toEqual([{ progress: 1, total: 2 }]);
      expect(connectSpy).toHaveBeenCalledTimes(1);

      const { spans, server, http } = await outerRequest();
      expect(tree(traceOf(spans, server))).toEqual(HTTP_TREE);
      expect(summary(server)).toEqual(outerServerSpan(VERSION[generation], http));
      expectToolSpans(spans, server);
    });

    it('traceparent and tracestate in _meta: the server span is a child of that remote span, linked to the HTTP span', async () => {
      const remote = remoteSpanContext(adapter === 'express' ? 11 : 12);
      await client.callTool(
        'outer',
        { n: 1 },
        { meta: { traceparent: traceparentOf(remote), tracestate: 'vendor=abc' } },
      );
      expect(connectSpy).toHaveBeenCalledTimes(1);

      const spans = await telemetry.spans();
      const server = only(spans, 'tools/call outer');
      const http = only(spans, 'POST');
      expect(server.parentSpanContext).toMatchObject({
        traceId: remote.traceId,
        spanId: remote.spanId,
        isRemote: true,
      });
      expect(server.parentSpanContext?.traceState?.serialize()).toBe('vendor=abc');
      expect(traceId(server)).toBe(remote.traceId);
      expect(summary(server).links).toEqual([{ traceId: traceId(http), spanId: spanId(http) }]);
      expect(tree(traceOf(spans, server))).toEqual([
        'tools/call outer (remote parent)',
        '  execute_tool outer',
        '    execute_tool inner',
      ]);
      expect(tree(traceOf(spans, http))).toEqual(['POST']);
      expectToolSpans(spans, server);
    });

    it('an unknown tool: -32602 on the span; the name the client gave on the span only, not in its name', async () => {
      const error = await rejection(client.callTool('nope', {}));
      expect(error.code).toBe(-32602);

      const spans = await telemetry.spans();
      const server = only(spans, 'tools/call');
      const http = parentOf(spans, server);
      expect(http.name).toBe('POST');
      expect(summary(server)).toEqual({
        name: 'tools/call',
        kind: SpanKind.SERVER,
        status: { code: SpanStatusCode.ERROR, message: 'Unknown tool "nope".' },
        attributes: {
          ...mcpAttributes('tools/call', VERSION[generation], 'nope'),
          'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
          ...clientOf(http),
          'error.type': '-32602',
          'rpc.response.status_code': '-32602',
        },
        events: [],
        links: [],
      });
      expect(spans.filter((span) => span.name.startsWith('execute_tool'))).toEqual([]);
    });

    it('an isError result, direct and SDK path: error.type tool_error on the server span, the code on execute_tool', async () => {
      const direct = await client.callTool('reserve', { seat: 'A1' });
      const viaSdk = await client.callTool('reserve', { seat: 'A1' }, { onprogress: () => {} });
      expect([direct.isError, viaSdk.isError]).toEqual([true, true]);
      expect(connectSpy).toHaveBeenCalledTimes(1);

      const spans = await telemetry.spans();
      const servers = spans.filter((span) => span.name === 'tools/call reserve');
      expect(servers).toHaveLength(2);
      for (const server of servers) {
        const http = parentOf(spans, server);
        expect(summary(server)).toEqual({
          name: 'tools/call reserve',
          kind: SpanKind.SERVER,
          status: { code: SpanStatusCode.ERROR },
          attributes: {
            ...mcpAttributes('tools/call', VERSION[generation], 'reserve'),
            'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
            ...clientOf(http),
            'error.type': 'tool_error',
          },
          events: [],
          links: [],
        });
        const [tool] = spans.filter((span) => parentId(span) === spanId(server));
        expect(tool.name).toBe('execute_tool reserve');
        expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Seat A1 is taken' });
        expect(tool.attributes['error.type']).toBe('CONFLICT');
      }
    });

    it('tools/list: a server span named by its method, with no tool attributes', async () => {
      const { tools } = await client.listTools();
      expect(tools.map(({ name }) => name)).toEqual(['inner', 'outer', 'reserve']);

      const spans = await telemetry.spans();
      const server = only(spans, 'tools/list');
      const http = parentOf(spans, server);
      expect(http.name).toBe('POST');
      expect(summary(server)).toEqual({
        name: 'tools/list',
        kind: SpanKind.SERVER,
        status: { code: SpanStatusCode.UNSET },
        attributes: {
          ...mcpAttributes('tools/list', VERSION[generation]),
          'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
          ...clientOf(http),
        },
        events: [],
        links: [],
      });
    });
  });

  describe.each(['legacy', 'modern'] as Era[])('raw %s-era JSON-RPC', (era) => {
    const version = era === 'legacy' ? LEGACY_VERSION : MODERN_VERSION;
    const id = era === 'legacy' ? 7 : 'r-7';
    beforeEach(() => telemetry.reset());

    const call = (name: string, args: unknown, meta: Record<string, unknown> = {}) =>
      post(mcpUrl, callBody(era, name, args, id, meta), eraHeaders(era, 'tools/call', name));

    it('direct path: the exact request id, and the version from the header (2025) or the _meta envelope (2026)', async () => {
      const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
      const answer = await call('outer', { n: 5 });
      expect(connectSpy).not.toHaveBeenCalled();
      connectSpy.mockRestore();
      expect(answer.status).toBe(200);

      const spans = await telemetry.spans();
      const server = only(spans, 'tools/call outer');
      const http = parentOf(spans, server);
      expect(tree(traceOf(spans, server))).toEqual(HTTP_TREE);
      expect(server.attributes).toEqual({
        ...mcpAttributes('tools/call', version, 'outer'),
        'jsonrpc.request.id': String(id),
        ...clientOf(http),
      });
      expectToolSpans(spans, server);
    });

    it('tools/list through the SDK (a cursor in params) gets its span too', async () => {
      const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
      const answer = await post(
        mcpUrl,
        listBody(era, id, { cursor: 'c-1' }),
        eraHeaders(era, 'tools/list'),
      );
      expect(connectSpy).toHaveBeenCalledTimes(1);
      connectSpy.mockRestore();
      expect(answer.status).toBe(200);
      const spans = await telemetry.spans();
      const list = only(spans, 'tools/list');
      expect(tree(traceOf(spans, list))).toEqual(['POST', '  tools/list']);
      expect(list.attributes).toEqual({
        ...mcpAttributes('tools/list', version),
        'jsonrpc.request.id': String(id),
        ...clientOf(parentOf(spans, list)),
      });
    });

    it('an invalid traceparent is ignored: the server span stays under the HTTP span, with no link', async () => {
      await call('outer', { n: 1 }, { traceparent: '00-not-a-trace-01' });
      const spans = await telemetry.spans();
      const server = only(spans, 'tools/call outer');
      expect(tree(traceOf(spans, server))).toEqual(HTTP_TREE);
      expect(server.links).toEqual([]);
    });

    it('a method the protocol does not have: _OTHER on the span and the metric, with its -32601', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'made/up',
        params: era === 'modern' ? { _meta: MODERN_META } : {},
      });
      const answer = await post(mcpUrl, body, eraHeaders(era, 'made/up'));
      expect(answer.messages?.at(-1)).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: 'Method not found' },
      });

      const spans = await telemetry.spans();
      const server = only(spans, '_OTHER');
      const outcome = { 'error.type': '-32601', 'rpc.response.status_code': '-32601' };
      expect(summary(server)).toEqual({
        name: '_OTHER',
        kind: SpanKind.SERVER,
        status: { code: SpanStatusCode.ERROR, message: 'Method not found' },
        attributes: {
          ...mcpAttributes('_OTHER', version),
          'jsonrpc.request.id': String(id),
          ...clientOf(parentOf(spans, server)),
          ...outcome,
        },
        events: [],
        links: [],
      });
      const points = (await telemetry.histograms()).get('mcp.server.operation.duration')!.points;
      expect(points.map(({ attributes }) => attributes)).toEqual([
        { ...mcpAttributes('_OTHER', version), ...outcome },
      ]);
    });

    it('mcp.server.operation.duration: a point per method, tool and outcome, with the conventions’ buckets', async () => {
      await call('outer', { n: 1 });
      await call('outer', { n: 2 }, { progressToken: 'p-1' });
      await call('nope', {});
      await call('reserve', { seat: 'B2' });
      await post(mcpUrl, listBody(era, id), eraHeaders(era, 'tools/list'));

      const collected = await telemetry.histograms();
      expect([...collected.keys()].sort()).toEqual([
        'gen_ai.execute_tool.duration',
        'mcp.server.operation.duration',
        'toolwright.tool.call.duration',
      ]);
      const histogram = collected.get('mcp.server.operation.duration');
      expect(histogram).toMatchObject({ unit: 's' });
      const points = histogram!.points.map(({ attributes, value }) => ({
        attributes,
        count: value.count,
      }));
      expect(points).toEqual(
        expect.arrayContaining([
          { attributes: mcpAttributes('tools/call', version, 'outer'), count: 2 },
          // A name no tool has stays off the metric: clients cannot grow its series.
          {
            attributes: {
              ...mcpAttributes('tools/call', version),
              'gen_ai.operation.name': 'execute_tool',
              'error.type': '-32602',
              'rpc.response.status_code': '-32602',
            },
            count: 1,
          },
          {
            attributes: {
              ...mcpAttributes('tools/call', version, 'reserve'),
              'error.type': 'tool_error',
            },
            count: 1,
          },
          { attributes: mcpAttributes('tools/list', version), count: 1 },
        ]),
      );
      expect(points).toHaveLength(4);
      for (const { value } of histogram!.points) {
        expect(value.buckets.boundaries).toEqual(MCP_BUCKETS);
        expect(value.sum).toBeGreaterThan(0);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(ADAPTERS)('the ToolsModule telemetry option on %s', (adapter) => {
  const apps = new TestApps();
  let mcpUrl: string;
  let optionsUrl: string;

  beforeAll(async () => {
    const nest: { invoker?: ToolInvoker; withOptions?: ToolInvoker } = {};
    const { app, url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: telemetryTools(() => nest.invoker!),
            telemetry: false,
          }),
        ],
      },
      adapter,
    );
    nest.invoker = app.get(ToolInvoker);
    mcpUrl = `${url}/mcp`;

    const other = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: telemetryTools(() => nest.withOptions!),
            context: (request: { headers: Record<string, unknown> }) => ({
              tenantId: request.headers['x-tenant-id'],
            }),
            telemetry: {
              recordArguments: true,
              attributes: (callContext) => ({ 'app.tenant.id': callContext.tenantId as string }),
            },
          }),
        ],
      },
      adapter,
    );
    nest.withOptions = other.app.get(ToolInvoker);
    optionsUrl = `${other.url}/mcp`;
  });
  afterAll(() => apps.closeAll());
  beforeEach(() => telemetry.reset());

  it('its options reach every call, the nested one in the request’s context too', async () => {
    const answer = await post(optionsUrl, callBody('legacy', 'outer', { n: 4 }, 1), {
      ...eraHeaders('legacy'),
      'x-tenant-id': 'acme',
    });
    expect(answer.status).toBe(200);
    const spans = await telemetry.spans();
    const outer = only(spans, 'execute_tool outer');
    const inner = only(spans, 'execute_tool inner');
    expect(outer.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"n":4}',
      'app.tenant.id': 'acme',
      'toolwright.transport': 'MCP',
    });
    expect(inner.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"n":4}',
      'app.tenant.id': 'acme',
      'toolwright.transport': 'AGENT',
    });
    expect(tree(traceOf(spans, outer))).toEqual(HTTP_TREE);
  });

  it.each(GENERATIONS)(
    'telemetry: false: no toolwright span or metric for %s calls (direct, SDK path, list)',
    async (generation) => {
      const client = await connectHttp(generation, mcpUrl);
      try {
        await client.callTool('outer', { n: 1 });
        await client.callTool('outer', { n: 1 }, { onprogress: () => {} });
        await client.callTool(
          'outer',
          { n: 1 },
          { meta: { traceparent: traceparentOf(remoteSpanContext(3)) } },
        );
        await client.callTool('reserve', { seat: 'A1' });
        await rejection(client.callTool('nope', {}));
        await client.listTools();
      } finally {
        await client.close();
      }
      expect(await telemetry.toolwrightSpans()).toEqual([]);
      // The SDK is live: the HTTP instrumentation recorded the requests.
      expect(
        (await telemetry.spans()).filter((span) => span.name === 'POST').length,
      ).toBeGreaterThan(5);
      expect([...(await telemetry.histograms()).keys()]).toEqual([]);
    },
  );
});

// ---------------------------------------------------------------------------------------------

/** `createMcpHttpHandler` over an invoker on a `node:http` server of 127.0.0.1; `stop` closes all. */
async function serveStandalone(invoker: CoreInvoker, options: McpHttpHandlerOptions = {}) {
  const handler = createMcpHttpHandler(invoker, options);
  const server: HttpServer = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async stop() {
      await handler.close({ graceMs: 0 });
      await invoker.close({ graceMs: 0 });
      await closeServer(server);
    },
  };
}

describe('standalone createMcpHttpHandler on node:http', () => {
  let mcpUrl: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const invoker: CoreInvoker = createToolInvoker(telemetryTools(() => invoker));
    ({ url: mcpUrl, stop } = await serveStandalone(invoker));
  });
  afterAll(() => stop());
  beforeEach(() => telemetry.reset());

  it.each(GENERATIONS)(
    '%s client: direct and SDK path give the tree, network.transport tcp',
    async (generation) => {
      const client = await connectHttp(generation, mcpUrl);
      await telemetry.reset();
      try {
        await client.callTool('outer', { n: 1 });
        await client.callTool('outer', { n: 1 }, { onprogress: () => {} });
      } finally {
        await client.close();
      }
      const spans = await telemetry.spans();
      const servers = spans.filter((span) => span.name === 'tools/call outer');
      expect(servers).toHaveLength(2);
      for (const serverSpan of servers) {
        const trace = traceOf(spans, serverSpan);
        expect(tree(trace)).toEqual(HTTP_TREE);
        const http = parentOf(spans, serverSpan);
        expect(serverSpan.attributes).toEqual({
          ...mcpAttributes('tools/call', VERSION[generation], 'outer'),
          'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
          ...clientOf(http),
        });
        expectToolSpans(trace, serverSpan);
      }
    },
  );

  it('a 2025-era initialize and its notification each get a server span', async () => {
    const client = await connectHttp('v1 (2025)', mcpUrl);
    await client.close();
    const spans = await telemetry.spans();
    const initialize = only(spans, 'initialize');
    const initializeHttp = parentOf(spans, initialize);
    expect(summary(initialize)).toEqual({
      name: 'initialize',
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        ...mcpAttributes('initialize', VERSION['v1 (2025)']),
        'jsonrpc.request.id': '0',
        ...clientOf(initializeHttp),
      },
      events: [],
      links: [],
    });
    const notification = only(spans, 'notifications/initialized');
    const notificationHttp = parentOf(spans, notification);
    expect(notificationHttp.name).toBe('POST');
    // A notification has no request id.
    expect(summary(notification)).toEqual({
      name: 'notifications/initialized',
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        ...mcpAttributes('notifications/initialized', VERSION['v1 (2025)']),
        ...clientOf(notificationHttp),
      },
      events: [],
      links: [],
    });
  });

  it('an initialize naming a version the server does not serve: _OTHER on the span and the metric', async () => {
    const invented = '9999-12-31-made-up';
    const answer = await post(
      mcpUrl,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: invented, capabilities: {}, clientInfo: CLIENT_INFO },
      }),
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    );
    // The server answers with a version of its own.
    expect(answer.messages?.at(-1)?.result?.protocolVersion).toBe(VERSION['v1 (2025)']);
    const initialize = only(await telemetry.spans(), 'initialize');
    expect(initialize.attributes['mcp.protocol.version']).toBe('_OTHER');
    const points = (await telemetry.histograms()).get('mcp.server.operation.duration')!.points;
    expect(points.map(({ attributes }) => attributes)).toEqual([
      { ...mcpAttributes('initialize', '_OTHER'), 'network.protocol.name': 'http' },
    ]);
    expect(JSON.stringify([initialize.attributes, points])).not.toContain(invented);
  });

  it('a direct-path JSON-RPC error (a listing whose context resolver fails): -32603 on the span', async () => {
    const logged: unknown[] = [];
    const guardedInvoker: CoreInvoker = createToolInvoker(
      telemetryTools(() => guardedInvoker),
      { guards: [{ canActivate: () => true, canList: () => true }] },
    );
    const failing = await serveStandalone(guardedInvoker, {
      context: () => {
        throw new Error('resolver down');
      },
      logger: { error: (message) => void logged.push(message) },
    });
    try {
      await telemetry.reset();
      const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
      const answer = await post(
        failing.url,
        listBody('legacy', 9),
        eraHeaders('legacy', 'tools/list'),
      );
      expect(connectSpy).not.toHaveBeenCalled();
      connectSpy.mockRestore();
      expect(answer.messages).toEqual([
        { jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error' } },
      ]);
    } finally {
      await failing.stop();
    }
    expect(logged).toEqual(['[toolwright] MCP tools/list failed:']);
    const spans = await telemetry.spans();
    const list = only(spans, 'tools/list');
    expect(tree(traceOf(spans, list))).toEqual(['POST', '  tools/list']);
    const http = parentOf(spans, list);
    expect(summary(list)).toEqual({
      name: 'tools/list',
      kind: SpanKind.SERVER,
      status: { code: SpanStatusCode.ERROR, message: 'Internal error' },
      attributes: {
        ...mcpAttributes('tools/list', LEGACY_VERSION),
        'jsonrpc.request.id': '9',
        ...clientOf(http),
        'error.type': '-32603',
        'rpc.response.status_code': '-32603',
      },
      events: [],
      links: [],
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('a 2026-era client that gives up on a running call (closes its request)', () => {
  let mcpUrl: string;
  let stop: () => Promise<void>;
  let started = deferred();

  beforeAll(async () => {
    const hold = defineRuntimeTool({
      name: 'hold',
      description: 'Run until cancelled',
      identity: { serviceName: 'jobs', action: 'hold', method: 'POST' },
      input: z.object({}),
      handler: ({ signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => resolve({ cancelled: true }));
          started.resolve();
        }),
    });
    ({ url: mcpUrl, stop } = await serveStandalone(createToolInvoker([hold])));
  });
  afterAll(() => stop());

  /** Starts `hold`, closes the request once it runs; the server span and the tool span. */
  async function giveUp(options: CallOptions) {
    const client = await connectHttp('v2 (2026-07-28)', mcpUrl);
    const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
    let throughSdk: number | undefined;
    try {
      await telemetry.reset();
      started = deferred();
      const controller = new AbortController();
      const call = rejection(
        client.callTool('hold', {}, { ...options, signal: controller.signal }),
      );
      await started.promise;
      controller.abort(new Error('the user left'));
      await call;
      throughSdk = connectSpy.mock.calls.length;
      const ended = () =>
        telemetry
          .toolwrightSpans()
          .then((spans) => spans.filter((span) => span.name.endsWith(' hold')).length === 2);
      expect(await waitFor(ended)).toBe(true);
    } finally {
      connectSpy.mockRestore();
      await client.close();
    }
    const spans = await telemetry.toolwrightSpans();
    return {
      server: only(spans, 'tools/call hold'),
      tool: only(spans, 'execute_tool hold'),
      throughSdk,
    };
  }

  it('SDK path (a progress token): the server span ends cancelled, the call REQUEST_ABORTED', async () => {
    const { server, tool, throughSdk } = await giveUp({ onprogress: () => {} });
    expect(throughSdk).toBe(1);
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(server.attributes['error.type']).toBe('cancelled');
    expect(tool.attributes['error.type']).toBe('REQUEST_ABORTED');
    expect(parentId(tool)).toBe(spanId(server));
  });

  // The SDK path (the reference) ends a request the client closed before any answer
  // `cancelled`; the direct path must record it the same way, not as a tool error.
  it('direct path: the same request ends cancelled too, not tool_error', async () => {
    const { server, tool, throughSdk } = await giveUp({});
    expect(throughSdk).toBe(0);
    expect(tool.attributes['error.type']).toBe('REQUEST_ABORTED');
    expect(parentId(tool)).toBe(spanId(server));
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(server.attributes['error.type']).toBe('cancelled');
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * Checks that each of `count` requests, sent with the traceparent of `remoteSpanContext(seed +
 * index)`, made exactly one server span under its own remote parent, whose `execute_tool outer`
 * and nested `execute_tool inner` are under it; returns the problems found.
 */
function misplacedRequests(spans: readonly ReadableSpan[], count: number, seed: number): string[] {
  const byTrace = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(traceId(span)) ?? [];
    list.push(span);
    byTrace.set(traceId(span), list);
  }
  const problems: string[] = [];
  for (let index = 0; index < count; index++) {
    const remote = remoteSpanContext(seed + index);
    const own = byTrace.get(remote.traceId) ?? [];
    const names = own.map((span) => span.name).sort();
    if (names.join() !== 'execute_tool inner,execute_tool outer,tools/call outer') {
      problems.push(`${index}: ${names.join()}`);
      continue;
    }
    const server = only(own, 'tools/call outer');
    const outer = only(own, 'execute_tool outer');
    const inner = only(own, 'execute_tool inner');
    if (parentId(server) !== remote.spanId) problems.push(`${index}: server parent`);
    if (parentId(outer) !== spanId(server)) problems.push(`${index}: outer parent`);
    if (parentId(inner) !== spanId(outer)) problems.push(`${index}: inner parent`);
  }
  return problems;
}

describe('concurrent requests, each with its own traceparent', () => {
  let invoker: CoreInvoker;
  beforeAll(() => {
    invoker = createToolInvoker(telemetryTools(() => invoker));
  });
  afterAll(() => invoker.close());
  beforeEach(() => telemetry.reset());

  it.each(GENERATIONS)(
    '300 calls on one stdio connection (%s client): every request under its own parent',
    async (generation) => {
      const COUNT = 300;
      const seed = generation === 'v1 (2025)' ? 1000 : 2000;
      const [clientSide, serverSide] =
        generation === 'v1 (2025)' ? MemoryV1.createLinkedPair() : MemoryV2.createLinkedPair();
      const stdio = serveStdio(invoker, { transport: serverSide as never });
      const client = await connect(generation, clientSide);
      try {
        await telemetry.reset();
        const results = await Promise.all(
          Array.from({ length: COUNT }, (_, index) =>
            client.callTool(
              'outer',
              { n: index },
              { meta: { traceparent: traceparentOf(remoteSpanContext(seed + index)) } },
            ),
          ),
        );
        expect(results.map((result) => JSON.parse(result.content[0].text).outer.doubled)).toEqual(
          Array.from({ length: COUNT }, (_, index) => index * 2),
        );
      } finally {
        await client.close();
        await stdio.close();
      }
      const spans = await telemetry.toolwrightSpans();
      expect(spans).toHaveLength(3 * COUNT);
      expect(misplacedRequests(spans, COUNT, seed)).toEqual([]);
    },
  );

  it('100 concurrent HTTP requests through the SDK: every request under its own parent', async () => {
    const COUNT = 100;
    const seed = 3000;
    const httpInvoker: CoreInvoker = createToolInvoker(telemetryTools(() => httpInvoker));
    const served = await serveStandalone(httpInvoker);
    try {
      const answers = await Promise.all(
        Array.from({ length: COUNT }, (_, index) =>
          post(
            served.url,
            callBody('legacy', 'outer', { n: index }, index, {
              traceparent: traceparentOf(remoteSpanContext(seed + index)),
            }),
            eraHeaders('legacy'),
          ),
        ),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
    } finally {
      await served.stop();
    }
    const spans = await telemetry.toolwrightSpans();
    expect(spans).toHaveLength(3 * COUNT);
    expect(misplacedRequests(spans, COUNT, seed)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('serveStdio over an in-memory pair', () => {
  let invoker: CoreInvoker;
  beforeAll(() => {
    invoker = createToolInvoker(telemetryTools(() => invoker));
  });
  afterAll(() => invoker.close());
  beforeEach(() => telemetry.reset());

  /** Serves the invoker on an in-memory pair of a generation; returns the client side. */
  function pair(generation: Generation) {
    const [clientSide, serverSide] =
      generation === 'v1 (2025)' ? MemoryV1.createLinkedPair() : MemoryV2.createLinkedPair();
    const server = serveStdio(invoker, { transport: serverSide as never });
    return { clientSide, server };
  }

  const pipeAttributes = (method: string, version: string, tool?: string) => ({
    'mcp.method.name': method,
    ...(tool !== undefined && {
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
    }),
    'mcp.protocol.version': version,
    'network.transport': 'pipe',
  });

  it.each(GENERATIONS)(
    '%s client: tools/call outer → execute_tool outer → execute_tool inner, network.transport pipe',
    async (generation) => {
      const { clientSide, server } = pair(generation);
      const client = await connect(generation, clientSide);
      try {
        await telemetry.reset();
        await client.callTool('outer', { n: 1 });
        await client.callTool('outer', { n: 1 }, { onprogress: () => {} });
      } finally {
        await client.close();
        await server.close();
      }
      const spans = await telemetry.spans();
      expect(tree(spans)).toEqual([
        'tools/call outer',
        '  execute_tool outer',
        '    execute_tool inner',
        'tools/call outer',
        '  execute_tool outer',
        '    execute_tool inner',
      ]);
      for (const serverSpan of spans.filter((span) => span.name === 'tools/call outer')) {
        expect(summary(serverSpan)).toEqual({
          name: 'tools/call outer',
          kind: SpanKind.SERVER,
          status: { code: SpanStatusCode.UNSET },
          attributes: {
            ...pipeAttributes('tools/call', VERSION[generation], 'outer'),
            'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
          },
          events: [],
          links: [],
        });
        expectToolSpans(traceOf(spans, serverSpan), serverSpan);
      }
    },
  );

  it.each(GENERATIONS)(
    '%s client: traceparent in _meta parents the request, with no link (no active context)',
    async (generation) => {
      const { clientSide, server } = pair(generation);
      const client = await connect(generation, clientSide);
      const remote = remoteSpanContext(generation === 'v1 (2025)' ? 21 : 22);
      try {
        await telemetry.reset();
        await client.callTool('outer', { n: 1 }, { meta: { traceparent: traceparentOf(remote) } });
        await rejection(client.callTool('nope', {}));
      } finally {
        await client.close();
        await server.close();
      }
      const spans = await telemetry.spans();
      const serverSpan = only(spans, 'tools/call outer');
      expect(serverSpan.parentSpanContext).toMatchObject({ spanId: remote.spanId, isRemote: true });
      expect(traceId(serverSpan)).toBe(remote.traceId);
      expect(serverSpan.links).toEqual([]);
      expectToolSpans(spans, serverSpan);

      const unknown = only(spans, 'tools/call');
      expect(unknown.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: 'Unknown tool "nope".',
      });
      expect(unknown.attributes).toEqual({
        ...pipeAttributes('tools/call', VERSION[generation], 'nope'),
        'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
        'error.type': '-32602',
        'rpc.response.status_code': '-32602',
      });
    },
  );

  it('an initialize naming a version the server does not serve: _OTHER, then the negotiated version', async () => {
    const { clientSide, server } = pair('v1 (2025)');
    const received: any[] = [];
    clientSide.onmessage = (message: unknown) => void received.push(message);
    await clientSide.start();
    const invented = `${'9'.repeat(64)}-made-up`;
    try {
      await clientSide.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: invented, capabilities: {}, clientInfo: CLIENT_INFO },
      });
      expect(await waitFor(() => received.length === 1)).toBe(true);
      expect(received[0].result.protocolVersion).toBe(VERSION['v1 (2025)']);
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      expect(await waitFor(() => received.length === 2)).toBe(true);
    } finally {
      await clientSide.close();
      await server.close();
    }
    const spans = await telemetry.spans();
    expect(only(spans, 'initialize').attributes['mcp.protocol.version']).toBe('_OTHER');
    expect(only(spans, 'tools/list').attributes['mcp.protocol.version']).toBe(VERSION['v1 (2025)']);
    const points = (await telemetry.histograms()).get('mcp.server.operation.duration')!.points;
    expect(points.map(({ attributes }) => attributes['mcp.protocol.version']).sort()).toEqual([
      '2025-11-25',
      '2025-11-25',
      '_OTHER',
    ]);
  });

  it('a 2025-era connection: later requests carry the version negotiated at initialize', async () => {
    const { clientSide, server } = pair('v1 (2025)');
    const received: any[] = [];
    clientSide.onmessage = (message: unknown) => void received.push(message);
    await clientSide.start();
    try {
      await clientSide.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT_INFO },
      });
      expect(await waitFor(() => received.length === 1)).toBe(true);
      expect(received[0].result.protocolVersion).toBe('2025-03-26');
      await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await clientSide.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'outer', arguments: { n: 1 } },
      });
      expect(await waitFor(() => received.length === 2)).toBe(true);
      expect(received[1]).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { content: [{ type: 'text', text: '{"outer":{"doubled":2}}' }] },
      });
    } finally {
      await clientSide.close();
      await server.close();
    }
    const spans = await telemetry.spans();
    expect(only(spans, 'tools/call outer').attributes).toEqual({
      ...pipeAttributes('tools/call', '2025-03-26', 'outer'),
      'jsonrpc.request.id': '2',
    });
    expect(only(spans, 'notifications/initialized').attributes).toEqual(
      pipeAttributes('notifications/initialized', '2025-03-26'),
    );
    expect(only(spans, 'initialize').attributes).toEqual({
      ...pipeAttributes('initialize', '2025-03-26'),
      'jsonrpc.request.id': '1',
    });
  });
});
