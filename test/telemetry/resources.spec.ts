/**
 * `mcp.resource.uri` on the MCP server spans of the requests that name a resource
 * (`resources/read`, `resources/subscribe`, `resources/unsubscribe`), by the MCP semantic
 * conventions, where it is conditionally required; and never on `mcp.server.operation.duration`,
 * where a URI — the client's to choose — would multiply the series (#22). Over Streamable HTTP
 * (`createMcpHttpHandler`, both eras, the direct path and the SDK path) and over stdio. Also the
 * instrumentation scope's version of the MCP spans and of the histogram.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as MemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server as SdkServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  createToolInvoker,
  defineResource,
  defineResourceTemplate,
  type ToolInvoker,
} from '../../lib/core/index.js';
import { serveStdio } from '../../lib/mcp/index.js';
import {
  type Era,
  ERAS,
  eraHeaders,
  finalMessage,
  LEGACY_VERSION,
  listenMcp,
  MODERN_META,
  MODERN_VERSION,
  post,
} from '../fixtures/mcp-http.js';
import { PACKAGE_VERSION, registerTelemetry, summary, type TestTelemetry } from './support.js';

const operations = () => [
  defineResource({ uri: 'demo://readme', name: 'readme', read: () => '# Read me' }),
  defineResourceTemplate({
    uriTemplate: 'demo://notes/{id}',
    name: 'note',
    variables: z.object({ id: z.string() }),
    read: ({ input }) => `note ${input.id}`,
  }),
];

const VERSION: Record<Era, string> = { legacy: LEGACY_VERSION, modern: MODERN_VERSION };

/** A `resources/read` (or another method naming a URI) of an era; `meta` adds `_meta` keys. */
function uriBody(era: Era, method: string, uri: string, id: string | number, meta = {}): string {
  const _meta = era === 'modern' ? { ...MODERN_META, ...meta } : meta;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { uri, ...(Object.keys(_meta).length > 0 && { _meta }) },
  });
}

/** The attributes of a request's span and duration point that do not vary per request. */
const httpAttributes = (method: string, era: Era) => ({
  'mcp.method.name': method,
  'mcp.protocol.version': VERSION[era],
  'network.transport': 'tcp',
  'network.protocol.name': 'http',
  'network.protocol.version': '1.1',
});

/** What a span's attributes hold, but the peer's address and port. */
function withoutPeer(span: ReadableSpan) {
  const { 'client.address': address, 'client.port': port, ...rest } = span.attributes;
  expect(address).toBe('127.0.0.1');
  expect(port).toEqual(expect.any(Number));
  return rest;
}

let telemetry: TestTelemetry;

beforeAll(() => {
  telemetry = registerTelemetry();
});
afterAll(() => telemetry.shutdown());

describe('resources/read over Streamable HTTP (createMcpHttpHandler)', () => {
  let invoker: ToolInvoker;
  let mcpUrl: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    invoker = createToolInvoker(operations());
    ({ url: mcpUrl, close } = await listenMcp(invoker));
  });
  afterAll(async () => {
    await close();
    await invoker.close({ graceMs: 0 });
  });
  beforeEach(() => telemetry.reset());

  const read = (era: Era, uri: string, id: string | number, meta = {}) =>
    post(
      mcpUrl,
      uriBody(era, 'resources/read', uri, id, meta),
      eraHeaders(era, 'resources/read', uri),
    );

  describe.each(ERAS)('%s era', (era) => {
    const id = era === 'legacy' ? 4 : 'r-4';

    it('direct path: the URI read on the span, named after its method only', async () => {
      const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
      const answer = await read(era, 'demo://notes/7', id);
      expect(connectSpy).not.toHaveBeenCalled();
      connectSpy.mockRestore();
      expect(finalMessage(answer)?.result?.contents?.[0]?.text).toBe('note 7');

      const spans = await telemetry.toolwrightSpans();
      expect(spans).toHaveLength(1);
      expect({ ...summary(spans[0]), attributes: withoutPeer(spans[0]) }).toEqual({
        name: 'resources/read',
        kind: SpanKind.SERVER,
        status: { code: SpanStatusCode.UNSET },
        attributes: {
          ...httpAttributes('resources/read', era),
          'mcp.resource.uri': 'demo://notes/7',
          'jsonrpc.request.id': String(id),
        },
        events: [],
        links: [],
      });
    });

    it('SDK path (a progress token): the URI on the span too', async () => {
      const connectSpy = jest.spyOn(SdkServer.prototype, 'connect');
      const answer = await read(era, 'demo://readme', id, { progressToken: 'p-1' });
      expect(connectSpy).toHaveBeenCalledTimes(1);
      connectSpy.mockRestore();
      expect(finalMessage(answer)?.result?.contents?.[0]?.text).toBe('# Read me');

      const [span] = await telemetry.toolwrightSpans();
      expect(span.name).toBe('resources/read');
      expect(span.attributes['mcp.resource.uri']).toBe('demo://readme');
    });

    it('a URI no resource has: on the span with its error, as the client asked it', async () => {
      const answer = await read(era, 'demo://nowhere/1', id);
      const { error } = finalMessage(answer) ?? {};
      expect(error?.code).toEqual(expect.any(Number));

      const [span] = await telemetry.toolwrightSpans();
      expect(span.name).toBe('resources/read');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes).toMatchObject({
        'mcp.resource.uri': 'demo://nowhere/1',
        'error.type': String(error.code),
      });
    });

    it('mcp.server.operation.duration never records a URI: every read of a method and outcome is one series', async () => {
      const uris = ['demo://readme', 'demo://notes/1', 'demo://notes/2', 'demo://notes/3'];
      for (const [index, uri] of uris.entries()) await read(era, uri, index + 1);
      const made = Array.from({ length: 5 }, (_, index) => `demo://made-up/${index}`);
      for (const [index, uri] of made.entries()) await read(era, uri, index + 10);

      const spans = await telemetry.toolwrightSpans();
      expect(spans.map((span) => span.attributes['mcp.resource.uri']).sort()).toEqual(
        [...uris, ...made].sort(),
      );
      const histogram = (await telemetry.histograms()).get('mcp.server.operation.duration')!;
      const points = histogram.points.map(({ attributes, value }) => ({
        attributes,
        count: value.count,
      }));
      const failed = points.find(({ attributes }) => attributes['error.type'] !== undefined)!;
      expect(points).toEqual([
        { attributes: httpAttributes('resources/read', era), count: uris.length },
        {
          attributes: {
            ...httpAttributes('resources/read', era),
            'error.type': failed.attributes['error.type'],
            'rpc.response.status_code': failed.attributes['error.type'],
          },
          count: made.length,
        },
      ]);
      expect(JSON.stringify(points)).not.toContain('demo://');
    });
  });

  it('the MCP span and the histogram carry the scope’s version, the package’s', async () => {
    await read('legacy', 'demo://readme', 1);
    const [span] = await telemetry.toolwrightSpans();
    expect(span.instrumentationScope).toEqual({
      name: 'toolwright',
      version: PACKAGE_VERSION,
      schemaUrl: undefined,
    });
    const histogram = (await telemetry.histograms()).get('mcp.server.operation.duration');
    expect(histogram?.scopeVersion).toBe(PACKAGE_VERSION);
  });
});

describe('serveStdio over an in-memory pair (a 2025-era client)', () => {
  let invoker: ToolInvoker;
  beforeAll(() => {
    invoker = createToolInvoker(operations());
  });
  afterAll(() => invoker.close({ graceMs: 0 }));
  beforeEach(() => telemetry.reset());

  it('resources/read, subscribe and unsubscribe: the URI on each span, none on the metric', async () => {
    const [clientSide, serverSide] = MemoryV1.createLinkedPair();
    const server = serveStdio(invoker, { transport: serverSide as never });
    const client = new ClientV1({ name: 'telemetry-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await telemetry.reset();
      const read = await client.readResource({ uri: 'demo://notes/9' });
      expect(read.contents).toEqual([expect.objectContaining({ text: 'note 9' })]);
      // Answered or refused, what the client asked about is on the span.
      const subscribe = (method: string) =>
        client
          .request({ method, params: { uri: 'demo://readme' } } as never, z.object({}).loose())
          .catch(() => undefined);
      await subscribe('resources/subscribe');
      await subscribe('resources/unsubscribe');
    } finally {
      await client.close();
      await server.close();
    }
    const spans = await telemetry.toolwrightSpans();
    const uriOf = (name: string) =>
      spans.find((span) => span.name === name)?.attributes['mcp.resource.uri'];
    expect(uriOf('resources/read')).toBe('demo://notes/9');
    expect(uriOf('resources/subscribe')).toBe('demo://readme');
    expect(uriOf('resources/unsubscribe')).toBe('demo://readme');
    expect(spans.find((span) => span.name === 'resources/read')?.attributes).toMatchObject({
      'mcp.method.name': 'resources/read',
      'network.transport': 'pipe',
    });
    // Other methods name no resource.
    for (const span of spans.filter((span) => !span.name.startsWith('resources/'))) {
      expect(span.attributes['mcp.resource.uri']).toBeUndefined();
    }

    const points = (await telemetry.histograms()).get('mcp.server.operation.duration')!.points;
    expect(points.map(({ attributes }) => attributes['mcp.method.name']).sort()).toEqual([
      'resources/read',
      'resources/subscribe',
      'resources/unsubscribe',
    ]);
    expect(JSON.stringify(points)).not.toContain('demo://');
  });
});
