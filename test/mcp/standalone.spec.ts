/**
 * `toolwright/mcp` without Nest: `createMcpHttpHandler` on a plain `node:http` server and
 * `serveStdio` over a core invoker, driven by both client generations. This file imports no
 * Nest, and checks that `toolwright/mcp` reaches none.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport as MemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  Client as ClientV2,
  InMemoryTransport as MemoryV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import {
  ToolError,
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  type ToolInvoker,
} from '../../lib/core/index.js';
import {
  createMcpHttpHandler,
  serveStdio,
  type McpHttpHandlerOptions,
  type McpRequestListener,
} from '../../lib/mcp/index.js';

// ---------------------------------------------------------------------------------------------
// Tools, declared with the core only.

/** A promise with its resolver, for handlers the test releases. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

function standaloneTools(held?: { started: () => void; release: Promise<void> }) {
  const tenancy = createRuntimeToolFactory({
    serviceName: 'tenancy',
    context: z.object({ tenantId: z.string().default('anonymous') }),
  });
  const echo = tenancy.define({
    action: 'echo',
    method: 'GET',
    description: 'Echo the text with the tenant the call runs for',
    input: z.object({ text: z.string().min(1) }),
    output: z.object({ text: z.string(), tenantId: z.string() }),
    handler: ({ input, context }) => ({ text: input.text, tenantId: context.tenantId }),
  });
  const reserve = defineRuntimeTool({
    description: 'Reserve a seat',
    identity: { serviceName: 'ops', action: 'reserve', method: 'POST' },
    input: z.object({ seat: z.string() }),
    handler: ({ input }) => {
      throw new ToolError('CONFLICT', {
        message: `Seat ${input.seat} is taken`,
        hint: 'Pick another seat',
        details: { seat: input.seat },
      });
    },
  });
  const run = defineRuntimeTool({
    description: 'Report progress while working',
    identity: { serviceName: 'jobs', action: 'run', method: 'POST' },
    input: z.object({ steps: z.number().int().min(1).max(10) }),
    output: z.object({ steps: z.number() }),
    handler: ({ input, reportProgress }) => {
      for (let step = 1; step <= input.steps; step++) {
        reportProgress({ progress: step, total: input.steps, message: `step ${step}` });
      }
      return { steps: input.steps };
    },
  });
  const hold = defineRuntimeTool({
    description: 'Answer once the test releases it',
    identity: { serviceName: 'jobs', action: 'hold', method: 'POST' },
    input: z.object({}),
    handler: async () => {
      held?.started();
      await held?.release;
      return { released: true };
    },
  });
  const agentOnly = defineRuntimeTool({
    description: 'Only for in-process agents',
    identity: { serviceName: 'ops', action: 'agent_only', method: 'POST' },
    input: z.object({}),
    transports: ['AGENT'],
    handler: () => ({ ok: true }),
  });
  return [echo, reserve, run, hold, agentOnly];
}

const TOOL_NAMES = ['tenancy_echo', 'ops_reserve', 'jobs_run', 'jobs_hold'];

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** The `tools/list` entries of `standaloneTools`, the same on both eras (object schemas only). */
const LISTED = [
  {
    name: 'tenancy_echo',
    description: 'Echo the text with the tenant the call runs for',
    inputSchema: {
      $schema: SCHEMA,
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    },
    outputSchema: {
      $schema: SCHEMA,
      type: 'object',
      properties: { text: { type: 'string' }, tenantId: { type: 'string' } },
      required: ['text', 'tenantId'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'ops_reserve',
    description: 'Reserve a seat',
    inputSchema: {
      $schema: SCHEMA,
      type: 'object',
      properties: { seat: { type: 'string' } },
      required: ['seat'],
    },
    annotations: { readOnlyHint: false },
  },
  {
    name: 'jobs_run',
    description: 'Report progress while working',
    inputSchema: {
      $schema: SCHEMA,
      type: 'object',
      properties: {
        steps: { type: 'integer', minimum: 1, maximum: 10 },
      },
      required: ['steps'],
    },
    outputSchema: {
      $schema: SCHEMA,
      type: 'object',
      properties: { steps: { type: 'number' } },
      required: ['steps'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false },
  },
  {
    name: 'jobs_hold',
    description: 'Answer once the test releases it',
    inputSchema: { $schema: SCHEMA, type: 'object', properties: {} },
    annotations: { readOnlyHint: false },
  },
];

// ---------------------------------------------------------------------------------------------
// Clients of both generations, behind one face.

const GENERATIONS = ['v1 (2025)', 'v2 (2026-07-28)'] as const;
type Generation = (typeof GENERATIONS)[number];
const isV1 = (generation: Generation) => generation === 'v1 (2025)';

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

interface TestClient {
  listTools(): Promise<{ tools: any[] }>;
  callTool(name: string, args?: Record<string, unknown>, onprogress?: (p: Progress) => void): any;
  /** What the client could not read (anything on stdout that is not JSON-RPC, say). */
  readonly errors: unknown[];
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'standalone-test', version: '1.0.0' };

async function connectV1(transport: unknown): Promise<TestClient> {
  const client = new ClientV1(CLIENT_INFO);
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport as never);
  return {
    errors,
    listTools: () => client.listTools(),
    callTool: (name, args = {}, onprogress) =>
      client.callTool({ name, arguments: args }, undefined, onprogress && { onprogress }),
    close: () => client.close(),
  };
}

async function connectV2(transport: unknown): Promise<TestClient> {
  const client = new ClientV2(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  const errors: unknown[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport as never);
  return {
    errors,
    listTools: () => client.listTools(),
    callTool: (name, args = {}, onprogress) =>
      client.callTool({ name, arguments: args }, onprogress && { onprogress }),
    close: () => client.close(),
  };
}

function connectHttp(
  generation: Generation,
  url: string,
  headers: Record<string, string> = {},
): Promise<TestClient> {
  const requestInit = { headers };
  return isV1(generation)
    ? connectV1(new HttpV1(new URL(url), { requestInit }))
    : connectV2(new HttpV2(new URL(url), { requestInit }));
}

/** The JSON of a result's only text block. */
function textJson(result: { content?: Array<{ type: string; text?: string }> }): unknown {
  expect(result.content).toEqual([{ type: 'text', text: expect.any(String) }]);
  return JSON.parse(result.content![0].text!);
}

// ---------------------------------------------------------------------------------------------
// A node:http server around the handler, and raw requests (any Host, any bytes).

interface Served {
  url: string;
  port: number;
  handler: McpRequestListener;
  invoker: ToolInvoker;
  /** Closes the handler, the invoker and the server (with its keep-alive connections). */
  stop(): Promise<void>;
}

async function serve(
  options: McpHttpHandlerOptions = {},
  held?: Parameters<typeof standaloneTools>[0],
): Promise<Served> {
  const invoker = createToolInvoker(standaloneTools(held));
  const handler = createMcpHttpHandler(invoker, options);
  const server: Server = createServer((request, response) => {
    if (request.url === '/mcp') handler(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    handler,
    invoker,
    stop: () =>
      (stopped ??= (async () => {
        await handler.close({ graceMs: 0 });
        await invoker.close({ graceMs: 0 });
        server.closeAllConnections();
        await new Promise<void>((done, fail) =>
          server.close((error) => (error ? fail(error) : done())),
        );
      })()),
  };
}

interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: unknown;
}

interface RawOptions {
  method?: string;
  headers?: OutgoingHttpHeaders;
  /** An array is written chunk by chunk, without a content-length (chunked encoding). */
  body?: string | string[];
  /** Send only the Host header given in `headers`. */
  rawHost?: boolean;
}

const ACCEPT = 'application/json, text/event-stream';
const LEGACY = {
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': '2025-06-18',
};

/** A JSON body, or the JSON-RPC message of an SSE body's last `data:` line. */
function parse(text: string): unknown {
  if (text === '') return undefined;
  if (!text.startsWith('event:')) return JSON.parse(text);
  const data = text.split('\n').filter((line) => line.startsWith('data: '));
  return JSON.parse(data.at(-1)!.slice('data: '.length));
}

function raw(port: number, options: RawOptions = {}): Promise<RawAnswer> {
  const headers: OutgoingHttpHeaders = { ...options.headers };
  const { body } = options;
  if (typeof body === 'string') headers['content-length'] = Buffer.byteLength(body);
  return new Promise((done, fail) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: options.method ?? 'POST',
        headers,
        setHost: !options.rawHost,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            done({ status: res.statusCode!, headers: res.headers, body: parse(text) });
          } catch (error) {
            fail(error);
          }
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server may answer 413 and close before the whole body is written.
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') fail(error);
    });
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

const rpc = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

// ---------------------------------------------------------------------------------------------

/** The context option of the specs: the tenant from a header; two tenants refused. */
const tenantContext: McpHttpHandlerOptions['context'] = (request) => {
  const tenant = request.headers['x-tenant-id'];
  if (tenant === 'suspended') {
    throw new ToolError('FORBIDDEN', {
      message: 'Tenant suspended is suspended',
      hint: 'Ask an administrator',
    });
  }
  if (tenant === 'broken') throw new Error('tenant store at 10.0.0.9 is down');
  return tenant === undefined ? {} : { tenantId: String(tenant) };
};

describe('createMcpHttpHandler on node:http (no Nest)', () => {
  let served: Served;
  const logged: Array<{ message: string; error: unknown }> = [];

  beforeAll(async () => {
    served = await serve({
      context: tenantContext,
      maxBodyBytes: 2000,
      logger: { error: (message, error) => logged.push({ message, error }) },
    });
  });
  afterAll(() => served?.stop());

  describe.each(GENERATIONS)('with the %s client', (generation) => {
    let client: TestClient;

    beforeAll(async () => {
      client = await connectHttp(generation, served.url, { 'x-tenant-id': 'acme' });
    });
    afterAll(() => client?.close());

    it('lists the MCP tools with their schemas and annotations', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      expect(tools).toEqual(LISTED);
    });

    it('calls a tool: structuredContent and the JSON text', async () => {
      const result = await client.callTool('tenancy_echo', { text: 'hello' });
      expect(result).toEqual({
        content: [{ type: 'text', text: JSON.stringify({ text: 'hello', tenantId: 'acme' }) }],
        structuredContent: { text: 'hello', tenantId: 'acme' },
        ...(!isV1(generation) && {
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolwright', version: '0.1.0' } },
        }),
      });
    });

    it('answers a ToolError with its isError envelope', async () => {
      const result = await client.callTool('ops_reserve', { seat: 'A1' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textJson(result)).toEqual({
        error: 'CONFLICT',
        message: 'Seat A1 is taken',
        retryable: false,
        details: { seat: 'A1' },
        hint: 'Pick another seat',
      });
    });

    it('answers invalid input with an isError VALIDATION_ERROR envelope', async () => {
      const result = await client.callTool('tenancy_echo', { text: '' });
      expect(result.isError).toBe(true);
      expect(textJson(result)).toEqual({
        error: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^Invalid input: text: /),
        retryable: false,
        details: {
          target: 'input',
          issues: [{ path: 'text', code: 'too_small', message: expect.any(String) }],
        },
      });
    });

    it.each([
      [
        'an unknown tool',
        'tenancy_ech',
        'Unknown tool "tenancy_ech". Did you mean "tenancy_echo"?',
      ],
      ['a tool not exposed on MCP', 'ops_agent_only', 'Unknown tool "ops_agent_only".'],
    ])('answers %s with JSON-RPC -32602', async (_what, name, message) => {
      const error = (await client.callTool(name, {}).catch((e: unknown) => e)) as any;
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(-32602);
      expect(error.message).toBe(isV1(generation) ? `MCP error -32602: ${message}` : message);
    });

    it('sends progress notifications in order, then the result', async () => {
      const updates: Progress[] = [];
      const result = await client.callTool('jobs_run', { steps: 3 }, (update) =>
        updates.push(update),
      );
      expect(result.structuredContent).toEqual({ steps: 3 });
      expect(updates).toEqual([
        { progress: 1, total: 3, message: 'step 1' },
        { progress: 2, total: 3, message: 'step 2' },
        { progress: 3, total: 3, message: 'step 3' },
      ]);
    });

    it('resolves each request’s context from its own headers', async () => {
      const other = await connectHttp(generation, served.url, { 'x-tenant-id': 'globex' });
      const anonymous = await connectHttp(generation, served.url);
      try {
        const results = await Promise.all(
          [client, other, anonymous, other, client].map((c, i) =>
            c.callTool('tenancy_echo', { text: `t${i}` }),
          ),
        );
        expect(results.map((result) => result.structuredContent)).toEqual([
          { text: 't0', tenantId: 'acme' },
          { text: 't1', tenantId: 'globex' },
          { text: 't2', tenantId: 'anonymous' },
          { text: 't3', tenantId: 'globex' },
          { text: 't4', tenantId: 'acme' },
        ]);
        // With progress (through the SDK rather than answered directly) too.
        const viaSdk = await other.callTool('tenancy_echo', { text: 'sdk' }, () => undefined);
        expect(viaSdk.structuredContent).toEqual({ text: 'sdk', tenantId: 'globex' });
      } finally {
        await Promise.all([other.close(), anonymous.close()]);
      }
    });

    it('answers a ToolError thrown by the context option with its isError envelope', async () => {
      const suspended = await connectHttp(generation, served.url, { 'x-tenant-id': 'suspended' });
      try {
        for (const onprogress of [undefined, () => undefined]) {
          const result = await suspended.callTool('tenancy_echo', { text: 'hi' }, onprogress);
          expect(result.isError).toBe(true);
          expect(textJson(result)).toEqual({
            error: 'FORBIDDEN',
            message: 'Tenant suspended is suspended',
            retryable: false,
            hint: 'Ask an administrator',
          });
        }
      } finally {
        await suspended.close();
      }
    });

    it('hides any other error of the context option as INTERNAL_SERVER_ERROR, and logs it', async () => {
      const broken = await connectHttp(generation, served.url, { 'x-tenant-id': 'broken' });
      logged.length = 0;
      try {
        const result = await broken.callTool('tenancy_echo', { text: 'hi' });
        expect(result.isError).toBe(true);
        expect(textJson(result)).toEqual({
          error: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error',
          retryable: false,
        });
        expect(JSON.stringify(result)).not.toContain('10.0.0.9');
        expect(logged).toEqual([
          {
            message: '[toolwright] MCP context for "tenancy_echo" failed:',
            error: new Error('tenant store at 10.0.0.9 is down'),
          },
        ]);
      } finally {
        await broken.close();
      }
    });
  });

  describe('raw HTTP', () => {
    it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and allow: POST', async (method) => {
      const answer = await raw(served.port, { method, headers: { accept: ACCEPT } });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Method not allowed.' },
        id: null,
      });
    });

    it('answers a malformed JSON body with 400 and -32700', async () => {
      const answer = await raw(served.port, {
        headers: LEGACY,
        body: '{"jsonrpc":"2.0","id":1,"method":',
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
        id: null,
      });
    });

    it('serves a body of exactly maxBodyBytes', async () => {
      const body = rpc('tools/call', { name: 'tenancy_echo', arguments: { text: 'x' } });
      const text = 'x'.repeat(2000 - body.length + 1);
      const padded = body.replace('"x"', JSON.stringify(text));
      expect(Buffer.byteLength(padded)).toBe(2000);
      for (const chunked of [false, true]) {
        const answer = await raw(served.port, {
          headers: LEGACY,
          body: chunked ? [padded.slice(0, 1000), padded.slice(1000)] : padded,
        });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({
          jsonrpc: '2.0',
          id: 1,
          result: {
            content: [{ type: 'text', text: JSON.stringify({ text, tenantId: 'anonymous' }) }],
            structuredContent: { text, tenantId: 'anonymous' },
          },
        });
      }
    });

    const tooLarge = {
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Request body too large.' },
      id: null,
    };
    const oversized = rpc('tools/call', {
      name: 'tenancy_echo',
      arguments: { text: 'x'.repeat(4000) },
    });

    it('answers a body over maxBodyBytes with 413 (declared length)', async () => {
      const answer = await raw(served.port, { headers: LEGACY, body: oversized });
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(answer.body).toEqual(tooLarge);
    });

    it('answers a chunked body over maxBodyBytes with 413 (counted while read)', async () => {
      const answer = await raw(served.port, {
        headers: LEGACY,
        body: [oversized.slice(0, 1500), oversized.slice(1500)],
      });
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual(tooLarge);
    });

    it('refuses a forbidden Host header with 403', async () => {
      const answer = await raw(served.port, {
        headers: { ...LEGACY, host: 'evil.example' },
        rawHost: true,
        body: rpc('tools/list'),
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Host: evil.example' },
        id: null,
      });
      // The loopback names are accepted.
      const allowed = await raw(served.port, {
        headers: { ...LEGACY, host: `localhost:${served.port}` },
        rawHost: true,
        body: rpc('tools/list'),
      });
      expect(allowed.status).toBe(200);
    });
  });
});

describe('createMcpHttpHandler close()', () => {
  it('lets a running answer finish, then answers every new request 503', async () => {
    const started = deferred();
    const release = deferred();
    const served = await serve({}, { started: started.resolve, release: release.promise });
    const client = await connectHttp('v1 (2025)', served.url);
    try {
      const running = client.callTool('jobs_hold', {});
      await started.promise;
      const closing = served.handler.close();

      const refused = await raw(served.port, { headers: LEGACY, body: rpc('tools/list') });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Server is shutting down; retry the request.' },
        id: null,
      });

      release.resolve();
      expect((await running).structuredContent).toBeUndefined();
      expect(textJson(await running)).toEqual({ released: true });
      await closing;

      const after = await raw(served.port, {
        headers: LEGACY,
        body: rpc('tools/call', { name: 'tenancy_echo', arguments: { text: 'late' } }),
      });
      expect(after.status).toBe(503);
    } finally {
      release.resolve();
      await client.close();
      await served.stop();
    }
  });
});

describe('createMcpHttpHandler default logger', () => {
  it('prints nothing for a request the SDK refuses', async () => {
    const spies = (['debug', 'log', 'info', 'warn', 'error'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation(() => undefined),
    );
    const served = await serve();
    try {
      const answer = await raw(served.port, { headers: LEGACY, body: '{"hello":"world"}' });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Bad Request: the request body is not a valid JSON-RPC message',
        },
        id: null,
      });
      expect(spies.map((spy) => spy.mock.calls)).toEqual([[], [], [], [], []]);
    } finally {
      await served.stop();
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('passes the refusal to a logger that has debug', async () => {
    const lines: string[] = [];
    const served = await serve({
      logger: { error: () => undefined, debug: (message) => lines.push(message) },
    });
    try {
      await raw(served.port, { headers: LEGACY, body: '{"hello":"world"}' });
      expect(lines).toEqual([
        'MCP request rejected: Rejected inbound request (invalid-json-rpc-body): Bad Request: the request body is not a valid JSON-RPC message',
      ]);
    } finally {
      await served.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// serveStdio

describe.each(GENERATIONS)('serveStdio over an in-memory pair (%s client)', (generation) => {
  let client: TestClient;
  let server: { close(): Promise<void> };
  let invoker: ToolInvoker;

  beforeAll(async () => {
    invoker = createToolInvoker(standaloneTools());
    if (isV1(generation)) {
      const [clientSide, serverSide] = MemoryV1.createLinkedPair();
      server = serveStdio(invoker, {
        context: { tenantId: 'local' },
        transport: serverSide as never,
      });
      client = await connectV1(clientSide);
    } else {
      const [clientSide, serverSide] = MemoryV2.createLinkedPair();
      server = serveStdio(invoker, {
        context: { tenantId: 'local' },
        transport: serverSide as never,
      });
      client = await connectV2(clientSide);
    }
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await invoker?.close();
  });

  it('lists the tools', async () => {
    expect((await client.listTools()).tools).toEqual(LISTED);
  });

  it("calls with serveStdio's context, with progress", async () => {
    const updates: Progress[] = [];
    const progress = await client.callTool('jobs_run', { steps: 2 }, (u) => updates.push(u));
    expect(progress.structuredContent).toEqual({ steps: 2 });
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ]);
    const echo = await client.callTool('tenancy_echo', { text: 'hi' });
    expect(echo.structuredContent).toEqual({ text: 'hi', tenantId: 'local' });
  });

  it('answers a ToolError with its envelope and an unknown tool with -32602', async () => {
    const result = await client.callTool('ops_reserve', { seat: 'B2' });
    expect(result.isError).toBe(true);
    expect(textJson(result)).toEqual({
      error: 'CONFLICT',
      message: 'Seat B2 is taken',
      retryable: false,
      details: { seat: 'B2' },
      hint: 'Pick another seat',
    });
    const error = (await client.callTool('ops_agent_only', {}).catch((e: unknown) => e)) as any;
    expect(error.code).toBe(-32602);
    expect(client.errors).toEqual([]);
  });
});

describe('serveStdio protocol modes (in-memory)', () => {
  /** Connects a client of a generation to serveStdio with a protocol mode; the failure, if any. */
  async function tryConnect(
    generation: Generation | 'v2 (negotiating)',
    protocol: 'legacy' | 'modern',
  ): Promise<{ tools?: string[]; error?: string }> {
    const invoker = createToolInvoker(standaloneTools());
    const v1 = generation === 'v1 (2025)';
    const [clientSide, serverSide] = v1 ? MemoryV1.createLinkedPair() : MemoryV2.createLinkedPair();
    const server = serveStdio(invoker, { protocol, transport: serverSide as never });
    const client = v1
      ? new ClientV1(CLIENT_INFO)
      : new ClientV2(
          CLIENT_INFO,
          generation === 'v2 (negotiating)'
            ? {}
            : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
    try {
      await client.connect(clientSide as never);
      const { tools } = await client.listTools();
      return { tools: tools.map((tool) => tool.name) };
    } catch (error) {
      return { error: String(error) };
    } finally {
      await client.close();
      await server.close();
      await invoker.close();
    }
  }

  it("'legacy' serves the 2025 revisions only", async () => {
    expect(await tryConnect('v1 (2025)', 'legacy')).toEqual({ tools: TOOL_NAMES });
    expect(await tryConnect('v2 (2026-07-28)', 'legacy')).toEqual({
      error:
        'SdkError: Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server/discover (no fallback in pin mode)',
    });
    // A client that negotiates falls back to the 2025 handshake.
    expect(await tryConnect('v2 (negotiating)', 'legacy')).toEqual({ tools: TOOL_NAMES });
  });

  it("'modern' serves the 2026-07-28 revision only", async () => {
    expect(await tryConnect('v2 (2026-07-28)', 'modern')).toEqual({ tools: TOOL_NAMES });
    expect(await tryConnect('v1 (2025)', 'modern')).toEqual({
      error: 'McpError: MCP error -32022: Unsupported protocol version: 2025-11-25',
    });
  });
});

/** The core-only fixture as a child process; it refuses to load any @nestjs package. */
const CHILD = {
  command: process.execPath,
  args: ['--import', 'tsx', 'test/fixtures/core-stdio-server.ts'],
  cwd: process.cwd(),
  stderr: 'pipe' as const,
};

/** The base v2 stdio transport negotiates on a sibling process; a subclass negotiates in place. */
class InPlaceStdioV2 extends StdioV2 {}

describe.each(GENERATIONS)('serveStdio in a core-only child process (%s client)', (generation) => {
  let client: TestClient;
  const stderr: string[] = [];

  beforeAll(async () => {
    const transport = isV1(generation) ? new StdioV1(CHILD) : new InPlaceStdioV2(CHILD);
    (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) =>
      stderr.push(chunk.toString('utf8')),
    );
    client = await (isV1(generation) ? connectV1(transport) : connectV2(transport));
  });
  afterAll(() => client?.close());

  it('serves the tools with its fixed context, and nothing but JSON-RPC on stdout', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'tenancy_echo',
      'tenancy_reserve',
      'jobs_wait',
      'jobs_release',
    ]);
    const echo = await client.callTool('tenancy_echo', { text: 'child' });
    expect(echo.structuredContent).toEqual({ text: 'child', tenantId: 'local' });
    const refused = await client.callTool('tenancy_reserve', { seat: 'C3' });
    expect(refused.isError).toBe(true);
    expect(textJson(refused)).toEqual({
      error: 'CONFLICT',
      message: 'Seat C3 is taken',
      retryable: false,
      details: { seat: 'C3' },
    });
    const unknown = (await client.callTool('tenancy_echoes').catch((e: unknown) => e)) as any;
    expect(unknown.code).toBe(-32602);
    expect(client.errors).toEqual([]);
    expect(stderr.join('')).toBe('');
  });

  it('sends progress before the answer', async () => {
    const updates: Progress[] = [];
    const releases: Array<Promise<any>> = [];
    const waited = await client.callTool('jobs_wait', {}, (update) => {
      updates.push(update);
      // The call answers only once released, so its answer cannot overtake this notification.
      releases.push(client.callTool('jobs_release'));
    });
    expect(updates).toEqual([{ progress: 1, total: 2, message: 'waiting' }]);
    expect(textJson(waited)).toEqual({ released: true });
    expect(await Promise.all(releases.map((r) => r.then(textJson)))).toEqual([{ released: true }]);
    expect(client.errors).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('toolwright/mcp reaches no Nest', () => {
  /** Every module specifier in a TypeScript source (static imports, re-exports, dynamic imports). */
  const specifiers = (source: string) =>
    [
      ...source
        .replace(/\/\*[\s\S]*?\*\//g, '') // block comments (JSDoc examples name packages)
        .replace(/^\s*\/\/.*$/gm, '') // line comments
        .matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g),
    ].map((match) => match[1]);

  it('imports, from lib/mcp/index.ts on, only lib/core, lib/mcp and no @nestjs package', () => {
    const root = resolve(process.cwd());
    const files = new Set<string>();
    const packages = new Set<string>();
    const pending = [join(root, 'lib/mcp/index.ts')];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (files.has(file)) continue;
      files.add(file);
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) {
          pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        } else {
          packages.add(specifier);
        }
      }
    }
    const folders = new Set([...files].map((file) => dirname(relative(root, file))));
    expect([...folders].sort()).toEqual([
      'lib/core',
      'lib/mcp',
      'lib/mcp/auth',
      'lib/mcp/eras',
      'lib/mcp/eras/2025-11-25',
      'lib/mcp/eras/2026-07-28',
    ]);
    expect(files.has(join(root, 'lib/mcp/http-handler.ts'))).toBe(true);
    expect(files.has(join(root, 'lib/mcp/serve-stdio.ts'))).toBe(true);
    expect([...packages].filter((name) => name.startsWith('@nestjs'))).toEqual([]);
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual([
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/server/stdio',
      '@opentelemetry/api',
      // Types only: the Standard Schema interfaces.
      '@standard-schema/spec',
      // Plain JSON Schema validation, as the MCP SDK validates (lib/core/schema-parse.ts).
      'ajv',
      'ajv-formats',
      'ajv/dist/2019.js',
      'ajv/dist/2020.js',
      'jose',
      'rxjs',
      'zod',
    ]);
  });

  it('this spec itself imports no @nestjs package', () => {
    const own = specifiers(
      readFileSync(join(process.cwd(), 'test/mcp/standalone.spec.ts'), 'utf8'),
    );
    expect(own.filter((name) => name.startsWith('@nestjs') || name.includes('lib/nest'))).toEqual(
      [],
    );
  });
});
