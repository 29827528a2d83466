import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller } from '@nestjs/common';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { McpEndpoint, ToolsModule, type McpOptions } from '../../lib/index.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import {
  ACCEPT,
  LEGACY_VERSION,
  MODERN_META,
  MODERN_VERSION,
  raw as rawRequest,
  type Answer as RawAnswer,
  type RawOptions,
  rawExchange,
} from '../fixtures/mcp-http.js';
import { mcpTools, newSeen } from './support.js';

// ---------------------------------------------------------------------------------------------
// Raw HTTP helpers. Every answer must come within a bounded time and never be a 500.

/** An answer whose body parsed: the JSON, or every SSE `data:` line. */
interface Answer extends RawAnswer {
  messages: any[];
}

function checked(answer: RawAnswer): Answer {
  expect(answer.status).not.toBe(500);
  if (answer.messages === undefined) {
    throw new Error(`unparseable ${answer.status} answer: ${answer.text}`);
  }
  // 202 Accepted (a notification) has no body; every other answer is JSON or SSE with JSON.
  if (answer.status !== 202) expect(answer.messages.length).toBeGreaterThan(0);
  return answer as Answer;
}

/** A request through `node:http`, body sent as given (chunked unless it sets a length). */
const raw = (url: string, options: RawOptions = {}) =>
  rawRequest(url, { contentLength: false, ...options }).then(checked);

/** A JSON POST, as a client sends it. */
const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  raw(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body,
    contentLength: true,
  });

const rpc = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

const legacyHeaders = { 'mcp-protocol-version': LEGACY_VERSION };
const modernHeaders = (method: string) => ({
  'mcp-protocol-version': MODERN_VERSION,
  'mcp-method': method,
});

const errorCode = (answer: Answer) => answer.messages[0]?.error?.code;

// ---------------------------------------------------------------------------------------------

const MAX_BODY = 10_000;

async function mcpApp(apps: TestApps, adapter: (typeof ADAPTERS)[number], mcp: McpOptions) {
  const { url } = await apps.listen(
    { imports: [ToolsModule.forRoot({ registry: mcpTools(newSeen()), mcp })] },
    adapter,
  );
  return { url, mcpUrl: `${url}${mcp.path ?? '/mcp'}` };
}

describe.each(ADAPTERS)('MCP over raw HTTP (%s)', (adapter) => {
  const apps = new TestApps();
  let mcpUrl: string;
  let port: string;

  beforeAll(async () => {
    ({ mcpUrl } = await mcpApp(apps, adapter, { maxBodyBytes: MAX_BODY }));
    port = new URL(mcpUrl).port;
  });
  afterAll(() => apps.closeAll());

  describe('malformed requests', () => {
    it('answers malformed JSON with 400 and -32700', async () => {
      const answer = await post(mcpUrl, '{"jsonrpc":"2.0","id":1,"method":', legacyHeaders);
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe(-32700);
    });

    it('answers a JSON object that is not JSON-RPC with 400 and -32600', async () => {
      const answer = await post(mcpUrl, JSON.stringify({ hello: 'world' }), legacyHeaders);
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe(-32600);
    });

    it('answers JSON that is not an object with 400 and -32600', async () => {
      for (const body of ['42', '"tools/list"', 'null']) {
        const answer = await post(mcpUrl, body, legacyHeaders);
        expect({ body, status: answer.status, code: errorCode(answer) }).toEqual({
          body,
          status: 400,
          code: -32600,
        });
      }
    });

    it('answers a batch of garbage with 400 and -32600', async () => {
      const answer = await post(mcpUrl, JSON.stringify([1, 'two', { three: 3 }]), legacyHeaders);
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe(-32600);
    });

    it('answers an empty batch with 400 and -32600', async () => {
      const answer = await post(mcpUrl, '[]', legacyHeaders);
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe(-32600);
    });

    it('answers a text/plain body with 415', async () => {
      const answer = await post(mcpUrl, rpc('tools/list'), {
        ...legacyHeaders,
        'content-type': 'text/plain',
      });
      expect(answer.status).toBe(415);
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Unsupported Media Type: Content-Type must be application/json',
        },
        id: null,
      });
    });

    it('answers an unsupported protocol version header with 400', async () => {
      const answer = await post(mcpUrl, rpc('tools/list'), {
        'mcp-protocol-version': '1999-01-01',
      });
      // No envelope: a 2025-era request, refused by the SDK's 2025 transport.
      expect(answer.status).toBe(400);
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        },
        id: null,
      });
    });
  });

  describe('body size', () => {
    const padded = (bytes: number) =>
      rpc('tools/call', { name: 'tenancy_echo', arguments: { text: 'x'.repeat(bytes) } });

    it('serves a body under maxBodyBytes', async () => {
      const answer = await post(mcpUrl, padded(MAX_BODY - 500), legacyHeaders);
      expect(answer.status).toBe(200);
      expect(answer.messages.at(-1).result.structuredContent.text).toHaveLength(MAX_BODY - 500);
    });

    it('answers a body over maxBodyBytes with 413 (content-length)', async () => {
      const answer = await post(mcpUrl, padded(MAX_BODY * 2), legacyHeaders);
      expect(answer.status).toBe(413);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('refuses on the declared content-length', async () => {
      const body = padded(MAX_BODY * 2);
      const answer = await raw(mcpUrl, {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          'content-length': Buffer.byteLength(body),
          ...legacyHeaders,
        },
        body,
      });
      expect(answer.status).toBe(413);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('answers a chunked body over maxBodyBytes with 413', async () => {
      const body = padded(MAX_BODY * 2);
      const answer = await raw(mcpUrl, {
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...legacyHeaders },
        body: [body.slice(0, 1000), body.slice(1000)],
      });
      expect(answer.status).toBe(413);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('answers a body far over every limit with 413', async () => {
      const answer = await post(mcpUrl, padded(2 * 1024 * 1024), legacyHeaders);
      expect(answer.status).toBe(413);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });
  });

  describe('methods', () => {
    it.each(['GET', 'DELETE'])(
      'answers %s with 405, allow: POST and a JSON-RPC error',
      async (method) => {
        const answer = await raw(mcpUrl, { method, headers: { accept: ACCEPT, ...legacyHeaders } });
        expect(answer.status).toBe(405);
        expect(answer.headers.allow).toBe('POST');
        expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      },
    );

    it('answers a JSON-RPC notification with 202 and no body', async () => {
      const answer = await post(
        mcpUrl,
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        legacyHeaders,
      );
      expect(answer.status).toBe(202);
      expect(answer.text).toBe('');
    });
  });

  describe('Host and Origin', () => {
    const headers = { 'content-type': 'application/json', accept: ACCEPT, ...legacyHeaders };

    it('refuses a forged Host header with 403', async () => {
      const answer = await raw(mcpUrl, {
        headers: { ...headers, host: 'evil.example' },
        body: rpc('tools/list'),
      });
      expect(answer.status).toBe(403);
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Host: evil.example' },
        id: null,
      });
      // With the port too.
      const withPort = await raw(mcpUrl, {
        headers: { ...headers, host: `evil.example:${port}` },
        body: rpc('tools/list'),
      });
      expect(withPort.status).toBe(403);
    });

    it('refuses a request with no Host header (HTTP/1.0) with 403, each time', async () => {
      const body = rpc('tools/list');
      const head = Object.entries({ ...headers, 'content-length': Buffer.byteLength(body) })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      for (let i = 0; i < 2; i++) {
        const reply = await rawExchange(port, `POST /mcp HTTP/1.0\r\n${head}\r\n${body}`);
        expect(reply.split('\r\n')[0]).toMatch(/^HTTP\/1\.[01] 403 Forbidden$/);
        expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Missing Host header' },
          id: null,
        });
      }
    });

    it('accepts the loopback names by default', async () => {
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
        const answer = await raw(mcpUrl, {
          headers: { ...headers, host },
          body: rpc('tools/list'),
        });
        expect({ host, status: answer.status }).toEqual({ host, status: 200 });
      }
    });

    it('refuses a foreign Origin with 403', async () => {
      const answer = await post(mcpUrl, rpc('tools/list'), {
        ...legacyHeaders,
        origin: 'http://evil.example',
      });
      expect(answer.status).toBe(403);
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Origin: evil.example' },
        id: null,
      });
    });

    it('accepts a loopback Origin', async () => {
      const answer = await post(mcpUrl, rpc('tools/list'), {
        ...legacyHeaders,
        origin: `http://localhost:${port}`,
      });
      expect(answer.status).toBe(200);
    });

    it('gives each Host and Origin value its own verdict, however often it comes', async () => {
      const statuses: string[] = [];
      for (const [host, origin] of [
        [`localhost:${port}`, undefined],
        ['evil.example', undefined],
        [`localhost:${port}`, 'http://evil.example'],
        [`localhost:${port}`, `http://localhost:${port}`],
        ['evil.example', `http://localhost:${port}`],
        [`localhost:${port}`, 'http://evil.example'],
        [`localhost:${port}`, undefined],
      ]) {
        const answer = await raw(mcpUrl, {
          headers: { ...headers, host: host!, ...(origin && { origin }) },
          body: rpc('tools/list'),
        });
        statuses.push(`${host} ${origin ?? '-'} ${answer.status}`);
      }
      expect(statuses).toEqual([
        `localhost:${port} - 200`,
        'evil.example - 403',
        `localhost:${port} http://evil.example 403`,
        `localhost:${port} http://localhost:${port} 200`,
        `evil.example http://localhost:${port} 403`,
        `localhost:${port} http://evil.example 403`,
        `localhost:${port} - 200`,
      ]);
    });
  });

  describe('2025 era by hand (stateless)', () => {
    it('initializes, lists and calls without a session', async () => {
      const init = await post(
        mcpUrl,
        rpc('initialize', {
          protocolVersion: LEGACY_VERSION,
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        }),
      );
      expect(init.status).toBe(200);
      expect(init.headers['mcp-session-id']).toBeUndefined();
      expect(init.messages.at(-1)).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: LEGACY_VERSION,
          capabilities: { tools: expect.any(Object) },
          serverInfo: { name: 'toolwright' },
        },
      });

      const initialized = await post(
        mcpUrl,
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        legacyHeaders,
      );
      expect(initialized.status).toBe(202);

      const list = await post(mcpUrl, rpc('tools/list', {}, 2), legacyHeaders);
      expect(list.status).toBe(200);
      expect(list.headers['mcp-session-id']).toBeUndefined();
      expect(
        list.messages.at(-1).result.tools.map((tool: { name: string }) => tool.name),
      ).toContain('math_square');

      const call = await post(
        mcpUrl,
        rpc('tools/call', { name: 'math_square', arguments: { n: 12 } }, 3),
        legacyHeaders,
      );
      expect(call.status).toBe(200);
      expect(call.headers['mcp-session-id']).toBeUndefined();
      expect(call.messages.at(-1)).toEqual({
        jsonrpc: '2.0',
        id: 3,
        result: expect.objectContaining({
          content: [{ type: 'text', text: '144' }],
          structuredContent: { result: 144 },
        }),
      });
    });

    it('answers a call on a fresh connection, with no initialize before it', async () => {
      const call = await raw(mcpUrl, {
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...legacyHeaders },
        body: rpc('tools/call', { name: 'math_square', arguments: { n: 3 } }, 'only'),
      });
      expect(call.status).toBe(200);
      expect(call.messages.at(-1)).toMatchObject({
        id: 'only',
        result: { content: [{ text: '9' }] },
      });
    });

    it('streams progress notifications for the request progress token, in order, then the result', async () => {
      const answer = await post(
        mcpUrl,
        rpc(
          'tools/call',
          { name: 'jobs_run', arguments: { steps: 3 }, _meta: { progressToken: 'tok-1' } },
          7,
        ),
        legacyHeaders,
      );
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
      const progress = answer.messages.filter((m) => m.method === 'notifications/progress');
      expect(progress.map((m) => m.params)).toEqual(
        [1, 2, 3].map((step) => ({
          progressToken: 'tok-1',
          progress: step,
          total: 3,
          message: `step ${step}`,
        })),
      );
      expect(answer.messages.at(-1)).toMatchObject({
        id: 7,
        result: { content: [{ text: '{"steps":3}' }] },
      });
    });

    it('sends no progress notifications without a progress token', async () => {
      const answer = await post(
        mcpUrl,
        rpc('tools/call', { name: 'jobs_run', arguments: { steps: 2 } }, 8),
        legacyHeaders,
      );
      expect(answer.status).toBe(200);
      expect(answer.messages.filter((m) => m.method === 'notifications/progress')).toEqual([]);
      expect(answer.messages.at(-1)).toMatchObject({
        id: 8,
        result: { content: [{ text: '{"steps":2}' }] },
      });
    });

    it('answers an unknown tool with a JSON-RPC -32602 error', async () => {
      const answer = await post(
        mcpUrl,
        rpc('tools/call', { name: 'math_sqare', arguments: {} }, 9),
        legacyHeaders,
      );
      // A JSON-RPC error, in the 200 answer of the request.
      expect(answer.status).toBe(200);
      expect(answer.messages.at(-1)).toMatchObject({
        id: 9,
        error: { code: -32602, message: expect.stringContaining('math_square') },
      });
    });
  });

  describe('2026 era by hand', () => {
    it('discovers and calls with per-request envelopes', async () => {
      const discover = await post(
        mcpUrl,
        rpc('server/discover', { _meta: MODERN_META }),
        modernHeaders('server/discover'),
      );
      expect(discover.status).toBe(200);
      expect(discover.messages.at(-1).result.supportedVersions).toContain(MODERN_VERSION);

      const call = await post(
        mcpUrl,
        rpc('tools/call', { name: 'math_square', arguments: { n: 5 }, _meta: MODERN_META }, 2),
        { ...modernHeaders('tools/call'), 'mcp-name': 'math_square' },
      );
      expect(call.status).toBe(200);
      expect(call.headers['mcp-session-id']).toBeUndefined();
      expect(call.messages.at(-1).result).toMatchObject({
        content: [{ type: 'text', text: '25' }],
        structuredContent: 25,
      });
    });
  });
});

describe.each(ADAPTERS)('MCP endpoint options over raw HTTP (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());
  const headers = { 'content-type': 'application/json', accept: ACCEPT, ...legacyHeaders };

  it('accepts the configured allowedHosts and only them', async () => {
    const { mcpUrl } = await mcpApp(apps, adapter, {
      path: '/agents/mcp',
      allowedHosts: ['mcp.example.com'],
    });
    const custom = await raw(mcpUrl, {
      headers: { ...headers, host: 'mcp.example.com' },
      body: rpc('tools/list'),
    });
    expect(custom.status).toBe(200);
    expect(custom.messages.at(-1).result.tools.length).toBeGreaterThan(0);
    const evil = await raw(mcpUrl, {
      headers: { ...headers, host: 'evil.example' },
      body: rpc('tools/list'),
    });
    expect(evil.status).toBe(403);
    // The list replaces the loopback defaults.
    const loopback = await post(mcpUrl, rpc('tools/list'), legacyHeaders);
    expect(loopback.status).toBe(403);
  });

  it('turns the Host check off with allowedHosts: false', async () => {
    const { mcpUrl } = await mcpApp(apps, adapter, { path: '/open/mcp', allowedHosts: false });
    const answer = await raw(mcpUrl, {
      headers: { ...headers, host: 'anything.example' },
      body: rpc('tools/list'),
    });
    expect(answer.status).toBe(200);
  });

  it("protocol: 'modern' refuses a 2025 initialize and serves 2026", async () => {
    const { mcpUrl } = await mcpApp(apps, adapter, { path: '/modern/mcp', protocol: 'modern' });
    const init = await post(
      mcpUrl,
      rpc('initialize', {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      }),
    );
    // The 2026-07-28 revision's UnsupportedProtocolVersion, listing what is supported.
    const unsupported = (id: number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32022,
        message: `Unsupported protocol version: ${LEGACY_VERSION}`,
        data: { supported: [MODERN_VERSION], requested: LEGACY_VERSION },
      },
    });
    expect(init.status).toBe(400);
    expect(init.messages).toEqual([unsupported(1)]);
    const list = await post(mcpUrl, rpc('tools/list', {}, 2), legacyHeaders);
    expect(list.status).toBe(400);
    expect(list.messages).toEqual([unsupported(2)]);

    const modern = await post(
      mcpUrl,
      rpc('tools/list', { _meta: MODERN_META }, 3),
      modernHeaders('tools/list'),
    );
    expect(modern.status).toBe(200);
    expect(modern.messages.at(-1).result.tools.length).toBeGreaterThan(0);
  });

  it("protocol: 'legacy' refuses a 2026 envelope request and serves 2025", async () => {
    const { mcpUrl } = await mcpApp(apps, adapter, { path: '/legacy/mcp', protocol: 'legacy' });
    const modern = await post(
      mcpUrl,
      rpc('tools/list', { _meta: MODERN_META }),
      modernHeaders('tools/list'),
    );
    expect(modern.status).toBe(400);
    expect(errorCode(modern)).toBe(-32022);
    const discover = await post(
      mcpUrl,
      rpc('server/discover', { _meta: MODERN_META }),
      modernHeaders('server/discover'),
    );
    expect(discover.status).toBe(400);
    expect(errorCode(discover)).toBe(-32022);

    const legacy = await post(mcpUrl, rpc('tools/list', {}, 2), legacyHeaders);
    expect(legacy.status).toBe(200);
    expect(legacy.messages.at(-1).result.tools.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Body handling on the MCP route (more in body-handling.spec.ts).

@Controller('own/mcp')
class OwnMcpController extends McpEndpoint {}

describe.each(ADAPTERS)('MCP body handling (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  // The MCP route reads bodies up to maxBodyBytes although the application's JSON parser
  // limit is lower (Express 100 kB, Fastify 1 MiB by default), which the application keeps on
  // its other routes.
  it('serves a 2 MiB body under the default maxBodyBytes (4 MiB)', async () => {
    const { mcpUrl } = await mcpApp(apps, adapter, {});
    const text = 'x'.repeat(2 * 1024 * 1024);
    const answer = await post(
      mcpUrl,
      rpc('tools/call', { name: 'tenancy_echo', arguments: { text } }),
      legacyHeaders,
    );
    expect(answer.status).toBe(200);
    expect(answer.messages.at(-1).result.structuredContent.text).toHaveLength(text.length);
  });

  // An application controller extending McpEndpoint names its route in `mcp.path`, so body
  // errors there are answered as JSON-RPC errors too.
  it('answers malformed JSON on an McpEndpoint subclass with -32700', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: mcpTools(newSeen()),
            mcp: { mount: false, path: '/own/mcp' },
          }),
        ],
        controllers: [OwnMcpController],
      },
      adapter,
    );
    const answer = await post(`${url}/own/mcp`, '{"jsonrpc":', legacyHeaders);
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe(-32700);
  });
});
