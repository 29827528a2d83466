/**
 * The floor: what Nest and its HTTP adapter cost for the JSON-RPC work of `tools/call echo` and
 * `tools/list`, with no MCP SDK and no toolwright. One controller answers `POST /mcp`: the
 * adapter parses the body, the controller checks the JSON-RPC envelope and the protocol version,
 * validates `echo`'s arguments and its result with the Zod schemas every target builds
 * (`shared/tools.ts`), and answers the JSON toolwright answers (2025: one SSE `event: message`
 * frame; 2026-07-28: JSON with `resultType` and the server's `_meta`). `tools/list` answers are
 * serialized once at startup. `initialize`, `notifications/initialized` and `server/discover`
 * are answered too, so the harness can start a session and the 2026 client can be captured.
 *
 * With `FLOOR_CONTEXT=1` every request is also made current in an `AsyncLocalStorage` (an
 * `onRequest` hook on Fastify, a first middleware on Express), as any request-context library
 * (and toolwright's request capture) does: on Node 22 that turns on promise hooks for the whole
 * process, a cost of its own the plain floor does not pay (Node 24 runs none).
 *
 * Environment: `PORT` (default 3404; 0 picks a free port), `ADAPTER` (`express`, the default, or
 * `fastify`), `TOOLS` (default 51), `HOST`, `FLOOR_CONTEXT`. Nest comes from the repository's
 * node_modules, as for the toolwright server.
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { Body, Controller, Headers, Module, Post, Res } from '@nestjs/common';
import { z } from 'zod';
import {
  ANNOTATIONS,
  answer,
  benchInput,
  benchOutput,
  BENCH_BODY_LIMIT,
  benchTools,
  toolCountFromEnv,
} from '../shared/tools.js';
import { adapterFromEnv, createBenchApp } from '../shared/nest-app.js';
import { announceReady, exitOnSignals, portFromEnv } from '../shared/ready.js';

const setupStart = performance.now();

const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'];
const PROTOCOL_META = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { name: 'toolwright-bench', version: '0.0.0' };
const CAPABILITIES = { tools: { listChanged: false } };
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };

const adapter = adapterFromEnv();
const count = toolCountFromEnv();
const host = process.env.HOST ?? '127.0.0.1';

const specs = benchTools(count);
const echo = specs.find((spec) => spec.name === 'echo')!;
const echoInput = benchInput(z, echo);
const output = benchOutput(z);
const outputSchema = z.toJSONSchema(output, { io: 'output', target: 'draft-2020-12' });
const tools = specs.map((spec) => ({
  name: spec.name,
  description: spec.description,
  inputSchema: z.toJSONSchema(benchInput(z, spec), { io: 'input', target: 'draft-2020-12' }),
  outputSchema,
  annotations: ANNOTATIONS,
}));
/** The `result` of `tools/list` per era, serialized once. */
const LIST_RESULT = {
  legacy: JSON.stringify({ tools }),
  modern: JSON.stringify({
    tools,
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: MODERN_META,
  }),
};

type Id = string | number;
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
};
const JSON_HEADERS = { 'content-type': 'application/json' };

/** A JSON-RPC answer whose `result` is already serialized: an SSE frame in 2025, JSON in 2026. */
function reply(modern: boolean, id: Id, result: string): Answer {
  const message = `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  return modern
    ? { status: 200, headers: JSON_HEADERS, body: message }
    : { status: 200, headers: SSE_HEADERS, body: `event: message\ndata: ${message}\n\n` };
}

function failure(status: number, id: Id | null, code: number, message: string): Answer {
  return {
    status,
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
  };
}

/** `tools/call`: only `echo`, its arguments and its result checked against the tool's schemas. */
function call(modern: boolean, id: Id, params: { name?: unknown; arguments?: unknown }): Answer {
  if (params.name !== echo.name) {
    return failure(200, id, -32602, `Unknown tool: ${String(params.name)}`);
  }
  const input = echoInput.safeParse(params.arguments ?? {});
  if (!input.success) {
    const text = `Invalid input: ${z.prettifyError(input.error)}`;
    return reply(modern, id, JSON.stringify({ content: [{ type: 'text', text }], isError: true }));
  }
  const structuredContent = output.parse(answer(input.data));
  const content = [{ type: 'text', text: JSON.stringify(structuredContent) }];
  return reply(
    modern,
    id,
    JSON.stringify(
      modern
        ? { content, structuredContent, resultType: 'complete', _meta: MODERN_META }
        : { content, structuredContent },
    ),
  );
}

/** One POST /mcp: the envelope and version checked, then the method answered. */
function handle(body: unknown, version: string | undefined): Answer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return failure(400, null, -32600, 'Invalid Request: expected one JSON-RPC message');
  }
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: any };
  const { id, method, params = {} } = message;
  if (message.jsonrpc !== '2.0' || typeof method !== 'string') {
    return failure(400, null, -32600, 'Invalid Request');
  }
  if (id === undefined) return { status: 202, headers: {}, body: '' };
  if (typeof id !== 'string' && typeof id !== 'number') {
    return failure(400, null, -32600, 'Invalid Request: bad id');
  }
  const modern = version === MODERN;
  if (modern && params?._meta?.[PROTOCOL_META] !== MODERN) {
    return failure(400, id, -32600, `Invalid Request: _meta.${PROTOCOL_META} must be ${MODERN}`);
  }
  if (method === 'initialize') {
    const asked = params?.protocolVersion;
    const protocolVersion = LEGACY.includes(asked) ? asked : LEGACY[0];
    return reply(
      false,
      id,
      JSON.stringify({ protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO }),
    );
  }
  if (!modern && version !== undefined && !LEGACY.includes(version)) {
    return failure(400, id, -32000, `Bad Request: unsupported protocol version ${version}`);
  }
  if (method === 'tools/call') return call(modern, id, params);
  if (method === 'tools/list') {
    return reply(modern, id, modern ? LIST_RESULT.modern : LIST_RESULT.legacy);
  }
  if (method === 'server/discover' && modern) {
    const discovered = {
      supportedVersions: [MODERN],
      capabilities: CAPABILITIES,
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: MODERN_META,
    };
    return reply(true, id, JSON.stringify(discovered));
  }
  return failure(200, id, -32601, `Method not found: ${method}`);
}

/** How the adapter's response object sends an answer. */
const send: (response: any, answer: Answer) => void =
  adapter === 'fastify'
    ? (reply, { status, headers, body }) => reply.code(status).headers(headers).send(body)
    : (res: ServerResponse, { status, headers, body }) =>
        res
          .writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) })
          .end(body);

@Controller('mcp')
class FloorController {
  @Post()
  post(
    @Body() body: unknown,
    @Headers('mcp-protocol-version') version: string | undefined,
    @Res() response: unknown,
  ): void {
    send(response, handle(body, version));
  }
}

class AppModule {}
Module({ controllers: [FloorController] })(AppModule);

const app = await createBenchApp(AppModule, adapter, BENCH_BODY_LIMIT);
if (process.env.FLOOR_CONTEXT === '1') {
  const current = new AsyncLocalStorage<{ request: unknown }>();
  const instance = app.getHttpAdapter().getInstance();
  if (adapter === 'fastify') {
    instance.addHook('onRequest', (request: unknown, _reply: unknown, done: () => void) =>
      current.run({ request }, done),
    );
  } else {
    instance.use((request: unknown, _response: unknown, next: () => void) =>
      current.run({ request }, next),
    );
  }
}
exitOnSignals(() => app.close());
await app.listen(portFromEnv(3404), host);
announceReady(`floor-${adapter}`, app.getHttpServer().address(), count, setupStart);
