/**
 * The MCP route's body handling as Nest serves the route: body errors answered as JSON-RPC
 * errors on that route only (global prefix, its exclusions and URI versioning applied), the
 * route's own body limit (`mcp.maxBodyBytes`) while every other route keeps the application's,
 * and its bound on nesting, checked on the bytes before anything parses them.
 */
import 'reflect-metadata';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import {
  Body,
  Controller,
  Injectable,
  Post,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
  VersioningType,
  type INestApplication,
  type ModuleMetadata,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { MAX_JSON_DEPTH } from '../../lib/core/json-depth.js';
import { McpEndpoint, ToolsModule, type McpOptions } from '../../lib/index.js';
import { ADAPTERS, TestApps, type AdapterName, type AppOptions } from '../fixtures/apps.js';
import { ACCEPT, LEGACY_VERSION, raw, type Answer } from '../fixtures/mcp-http.js';
import { mcpTools, newSeen } from './support.js';

const MiB = 1024 * 1024;
const DEFAULT_MAX_BODY = 4 * MiB;

const HEADERS = {
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': LEGACY_VERSION,
};
const MALFORMED = '{"jsonrpc":"2.0","id":1,"method":';

const PARSE_ERROR = {
  jsonrpc: '2.0',
  error: { code: -32700, message: 'Parse error: the body is not valid JSON.' },
  id: null,
};
const TOO_LARGE = {
  jsonrpc: '2.0',
  error: { code: -32600, message: 'Request body too large.' },
  id: null,
};

/** The application's own answer to malformed JSON (Nest's on Express, Fastify's on Fastify). */
const ORDINARY_PARSE_ERROR: Record<AdapterName, unknown> = {
  express: { message: 'Unexpected end of JSON input', error: 'Bad Request', statusCode: 400 },
  fastify: {
    statusCode: 400,
    message: "Body is not valid JSON but content-type is set to 'application/json'",
  },
};

/** The application's own answer to a body over its JSON limit. */
const ORDINARY_TOO_LARGE: Record<AdapterName, unknown> = {
  express: { statusCode: 413, message: 'request entity too large' },
  fastify: { statusCode: 413, message: 'Request body is too large' },
};

/** The application's default JSON limit: Express 100 kB, Fastify 1 MiB. */
const APP_LIMIT: Record<AdapterName, number> = { express: 100 * 1024, fastify: MiB };

const post = (url: string, body: string) =>
  raw(url, { method: 'POST', headers: HEADERS, body, timeoutMs: 20_000 });

/** A `tools/call` of `tenancy_echo` whose body is exactly `bytes` long. */
function echoCall(bytes: number): { body: string; text: number } {
  const envelope = (text: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'tenancy_echo', arguments: { text } },
    });
  const text = bytes - Buffer.byteLength(envelope(''));
  const body = envelope('x'.repeat(text));
  expect(Buffer.byteLength(body)).toBe(bytes);
  return { body, text };
}

/** The JSON body of an answer. */
const json = (answer: Answer) => JSON.parse(answer.text);

/** The length of the text `tenancy_echo` echoed in a 200 answer. */
const echoedLength = (answer: Answer) =>
  answer.messages?.at(-1)?.result?.structuredContent?.text?.length;

@Controller('admin')
class AdminController {
  @Post('mcp')
  mcp(@Body() body: unknown) {
    return { received: typeof body };
  }

  @Post('echo')
  echo(@Body() body: { text?: string }) {
    return { length: body?.text?.length ?? 0 };
  }
}

@Controller({ path: 'agents/mcp', version: '2' })
class VersionedMcpController extends McpEndpoint {}

@Controller('own/mcp')
class OwnMcpController extends McpEndpoint {}

function module(mcp: McpOptions = {}, controllers: ModuleMetadata['controllers'] = []) {
  return {
    imports: [ToolsModule.forRoot({ registry: mcpTools(newSeen()), mcp })],
    controllers: [AdminController, ...controllers],
  };
}

/** Boots an application, with `setup` run between its creation and `listen()`. */
async function listen(
  apps: TestApps,
  adapter: AdapterName,
  metadata: ModuleMetadata,
  setup: (app: INestApplication) => void = () => undefined,
  options: AppOptions = {},
): Promise<string> {
  const app = await apps.create(metadata, adapter, options);
  setup(app);
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

describe.each(ADAPTERS)('body errors on the MCP route only (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  it('answers malformed JSON on /mcp with 400 and -32700, and on /admin/mcp as the application does', async () => {
    const url = await listen(apps, adapter, module());

    const mcp = await post(`${url}/mcp`, MALFORMED);
    expect({ status: mcp.status, body: json(mcp) }).toEqual({ status: 400, body: PARSE_ERROR });

    const withQuery = await post(`${url}/mcp?tenant=a`, MALFORMED);
    expect({ status: withQuery.status, body: json(withQuery) }).toEqual({
      status: 400,
      body: PARSE_ERROR,
    });

    const admin = await post(`${url}/admin/mcp`, MALFORMED);
    expect({ status: admin.status, body: json(admin) }).toEqual({
      status: 400,
      body: ORDINARY_PARSE_ERROR[adapter],
    });
  });

  it('maps /api/mcp under the global prefix api, and not /mcp', async () => {
    const url = await listen(apps, adapter, module(), (app) => app.setGlobalPrefix('api'));

    const prefixed = await post(`${url}/api/mcp`, MALFORMED);
    expect({ status: prefixed.status, body: json(prefixed) }).toEqual({
      status: 400,
      body: PARSE_ERROR,
    });

    const bare = await post(`${url}/mcp`, MALFORMED);
    expect({ status: bare.status, body: json(bare) }).toEqual({
      status: 400,
      body: ORDINARY_PARSE_ERROR[adapter],
    });
  });

  it('maps /mcp when the global prefix excludes it', async () => {
    const url = await listen(apps, adapter, module(), (app) =>
      app.setGlobalPrefix('api', { exclude: ['mcp'] }),
    );

    const mcp = await post(`${url}/mcp`, MALFORMED);
    expect({ status: mcp.status, body: json(mcp) }).toEqual({ status: 400, body: PARSE_ERROR });

    const admin = await post(`${url}/api/admin/mcp`, MALFORMED);
    expect({ status: admin.status, body: json(admin) }).toEqual({
      status: 400,
      body: ORDINARY_PARSE_ERROR[adapter],
    });
  });

  it('maps /api/v1/mcp under URI versioning with a default version, and not /api/mcp', async () => {
    const url = await listen(apps, adapter, module(), (app) => {
      app.setGlobalPrefix('api');
      app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
    });

    const versioned = await post(`${url}/api/v1/mcp`, MALFORMED);
    expect({ status: versioned.status, body: json(versioned) }).toEqual({
      status: 400,
      body: PARSE_ERROR,
    });

    const unversioned = await post(`${url}/api/mcp`, MALFORMED);
    expect({ status: unversioned.status, body: json(unversioned) }).toEqual({
      status: 400,
      body: ORDINARY_PARSE_ERROR[adapter],
    });
  });
});

describe.each(ADAPTERS)('the MCP route body limit (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  it('serves a body of exactly maxBodyBytes (4 MiB by default) and refuses 4 MiB + 1 byte with 413 and -32600', async () => {
    const url = await listen(apps, adapter, module());

    const { body, text } = echoCall(DEFAULT_MAX_BODY);
    const served = await post(`${url}/mcp`, body);
    expect({ status: served.status, echoed: echoedLength(served) }).toEqual({
      status: 200,
      echoed: text,
    });

    const over = await post(`${url}/mcp`, echoCall(DEFAULT_MAX_BODY + 1).body);
    expect({ status: over.status, body: json(over) }).toEqual({ status: 413, body: TOO_LARGE });
  });

  it('serves a chunked body of exactly maxBodyBytes and refuses one of 4 MiB + 1 byte with 413 and -32600', async () => {
    const url = await listen(apps, adapter, module());
    const chunked = (body: string) =>
      raw(`${url}/mcp`, {
        method: 'POST',
        headers: HEADERS,
        body: [body.slice(0, MiB), body.slice(MiB)],
        timeoutMs: 20_000,
      });

    const { body, text } = echoCall(DEFAULT_MAX_BODY);
    const served = await chunked(body);
    expect({ status: served.status, echoed: echoedLength(served) }).toEqual({
      status: 200,
      echoed: text,
    });

    const over = await chunked(echoCall(DEFAULT_MAX_BODY + 1).body);
    expect({ status: over.status, body: json(over) }).toEqual({ status: 413, body: TOO_LARGE });
  });

  it("keeps the application's own limit on every other route", async () => {
    const url = await listen(apps, adapter, module());
    const small = await post(`${url}/admin/echo`, JSON.stringify({ text: 'hello' }));
    expect({ status: small.status, body: json(small) }).toEqual({
      status: 201,
      body: { length: 5 },
    });

    const over = await post(
      `${url}/admin/echo`,
      JSON.stringify({ text: 'x'.repeat(APP_LIMIT[adapter] * 2) }),
    );
    expect({ status: over.status, body: json(over) }).toEqual({
      status: 413,
      body: ORDINARY_TOO_LARGE[adapter],
    });
  });

  it('serves a 2 MiB body on /api/mcp under the global prefix api', async () => {
    const url = await listen(apps, adapter, module(), (app) => app.setGlobalPrefix('api'));
    const { body, text } = echoCall(2 * MiB);
    const answer = await post(`${url}/api/mcp`, body);
    expect({ status: answer.status, echoed: echoedLength(answer) }).toEqual({
      status: 200,
      echoed: text,
    });
  });

  it("serves a 2 MiB body on the application's own controller at mcp.path (mount: false)", async () => {
    const url = await listen(
      apps,
      adapter,
      module({ mount: false, path: '/own/mcp' }, [OwnMcpController]),
    );
    const { body, text } = echoCall(2 * MiB);
    const answer = await post(`${url}/own/mcp`, body);
    expect({ status: answer.status, echoed: echoedLength(answer) }).toEqual({
      status: 200,
      echoed: text,
    });
  });

  it("serves 2 MiB and maps body errors on a versioned controller of the application's own (/api/v2/agents/mcp)", async () => {
    const url = await listen(
      apps,
      adapter,
      module({ mount: false, path: '/agents/mcp' }, [VersionedMcpController]),
      (app) => {
        app.setGlobalPrefix('api');
        app.enableVersioning({ type: VersioningType.URI });
      },
    );
    const { body, text } = echoCall(2 * MiB);
    const answer = await post(`${url}/api/v2/agents/mcp`, body);
    expect({ status: answer.status, echoed: echoedLength(answer) }).toEqual({
      status: 200,
      echoed: text,
    });

    const malformed = await post(`${url}/api/v2/agents/mcp`, MALFORMED);
    expect({ status: malformed.status, body: json(malformed) }).toEqual({
      status: 400,
      body: PARSE_ERROR,
    });
  });

  it('keeps request.rawBody on the MCP route with mcp.rawBody, and not by default, whatever the application keeps elsewhere', async () => {
    const seen = async (mcp: McpOptions) => {
      const rawBodies: Record<string, unknown> = {};
      // A global guard sees the request as the route's handler does (after the body is read).
      @Injectable()
      class RawBodyProbe implements CanActivate {
        canActivate(context: ExecutionContext) {
          const request = context
            .switchToHttp()
            .getRequest<{ originalUrl?: string; url: string; rawBody?: unknown }>();
          const raw = request.rawBody;
          rawBodies[request.originalUrl ?? request.url] = Buffer.isBuffer(raw) ? raw.length : raw;
          return true;
        }
      }
      const metadata = module(mcp);
      const url = await listen(
        apps,
        adapter,
        { ...metadata, providers: [{ provide: APP_GUARD, useClass: RawBodyProbe }] },
        undefined,
        {
          rawBody: true,
        },
      );
      const { body } = echoCall(1000);
      expect((await post(`${url}/mcp`, body)).status).toBe(200);
      expect((await post(`${url}/admin/echo`, '{"text":"abc"}')).status).toBe(201);
      return rawBodies;
    };
    // On Fastify, Nest's rawBody setting applies to every route, the MCP route included.
    expect(await seen({})).toEqual({
      '/mcp': adapter === 'express' ? undefined : 1000,
      '/admin/echo': 14,
    });
    expect(await seen({ rawBody: true })).toEqual({ '/mcp': 1000, '/admin/echo': 14 });
  });

  it('reads the MCP body after the middleware the application registered with app.use()', async () => {
    const bodySeen: unknown[] = [];
    const url = await listen(apps, adapter, module(), (app) =>
      app.use((request: { body?: unknown }, _response: unknown, next: () => void) => {
        bodySeen.push(request.body);
        next();
      }),
    );
    const { body, text } = echoCall(2 * MiB);
    const answer = await post(`${url}/mcp`, body);
    expect({ status: answer.status, echoed: echoedLength(answer), bodySeen }).toEqual({
      status: 200,
      echoed: text,
      bodySeen: [undefined],
    });
  });
});

describe.each(ADAPTERS)('the MCP route body depth (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  const TOO_DEEP = {
    jsonrpc: '2.0',
    error: {
      code: -32700,
      message: `Parse error: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
    },
    id: null,
  };

  /** Brackets and a quote in a string, which count for nothing. */
  const TEXT = 'a [{ " \\ string';

  /**
   * A `tools/call` of `tenancy_echo` whose body nests `depth` levels (the envelope three, an
   * ignored argument the rest).
   */
  function nestedCall(depth: number): string {
    const extra = depth - 3;
    return (
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tenancy_echo",' +
      `"arguments":{"text":${JSON.stringify(TEXT)},"extra":${'['.repeat(extra)}${']'.repeat(extra)}}}}`
    );
  }

  /** Counts the requests the application's guard saw; it refuses those without an API key. */
  function guarded() {
    const seen = { guarded: 0 };
    @Injectable()
    class CountingGuard implements CanActivate {
      canActivate(context: ExecutionContext) {
        seen.guarded++;
        const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
        if (request.headers['x-api-key'] !== 'sesame') throw new UnauthorizedException();
        return true;
      }
    }
    return { seen, providers: [{ provide: APP_GUARD, useClass: CountingGuard }] };
  }

  it(`serves a body nested ${MAX_JSON_DEPTH} levels deep and refuses one level more with 400 and -32700, before the guard`, async () => {
    const { seen, providers } = guarded();
    const url = await listen(apps, adapter, { ...module(), providers });
    const signed = (body: string) =>
      raw(`${url}/mcp`, { method: 'POST', headers: { ...HEADERS, 'x-api-key': 'sesame' }, body });

    const deepest = await signed(nestedCall(MAX_JSON_DEPTH));
    expect({ status: deepest.status, echoed: echoedLength(deepest) }).toEqual({
      status: 200,
      echoed: TEXT.length,
    });
    expect(seen.guarded).toBe(1);

    const deeper = await signed(nestedCall(MAX_JSON_DEPTH + 1));
    expect({ status: deeper.status, body: json(deeper) }).toEqual({ status: 400, body: TOO_DEEP });
    expect(seen.guarded).toBe(1);

    // Sent in chunks, the depth is read across them.
    const body = nestedCall(MAX_JSON_DEPTH + 1);
    const chunked = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'x-api-key': 'sesame' },
      body: [...body].reduce<string[]>((chunks, char, i) => {
        if (i % 7 === 0) chunks.push('');
        chunks[chunks.length - 1] += char;
        return chunks;
      }, []),
    });
    expect({ status: chunked.status, body: json(chunked) }).toEqual({
      status: 400,
      body: TOO_DEEP,
    });
    expect(seen.guarded).toBe(1);
  });

  it('refuses a body too deep that arrived whole while an asynchronous step of the application ran first', async () => {
    const { seen, providers } = guarded();
    // The body is read only after this step, which waits until all of it (and its end) has
    // arrived and is buffered.
    const whole = async (request: { complete: boolean }) => {
      while (!request.complete) await new Promise((resolve) => setImmediate(resolve));
    };
    const url = await listen(apps, adapter, { ...module(), providers }, (app) => {
      if (adapter === 'fastify') {
        app
          .getHttpAdapter()
          .getInstance()
          .addHook('onRequest', (request: { raw: { complete: boolean } }) => whole(request.raw));
      } else {
        app.use((request: { complete: boolean }, _response: unknown, next: () => void) => {
          void whole(request).then(next);
        });
      }
    });
    const signed = (body: string) =>
      raw(`${url}/mcp`, { method: 'POST', headers: { ...HEADERS, 'x-api-key': 'sesame' }, body });

    const deeper = await signed(nestedCall(MAX_JSON_DEPTH + 1));
    expect({ status: deeper.status, body: json(deeper) }).toEqual({ status: 400, body: TOO_DEEP });
    expect(seen.guarded).toBe(0);
    const deepest = await signed(nestedCall(MAX_JSON_DEPTH));
    expect({ status: deepest.status, echoed: echoedLength(deepest) }).toEqual({
      status: 200,
      echoed: TEXT.length,
    });
  });

  it('answers a deep body of a type no parser reads with 415, its depth error heard by no one, and serves the next', async () => {
    const url = await listen(apps, adapter, module());
    const unread = await raw(`${url}/mcp`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/octet-stream' },
      body: nestedCall(MAX_JSON_DEPTH * 4),
    });
    expect({ status: unread.status, code: json(unread).error?.code }).toEqual({
      status: 415,
      code: -32000,
    });
    const next = await post(`${url}/mcp`, nestedCall(4));
    expect(echoedLength(next)).toBe(TEXT.length);
  });

  it('refuses a 4 MiB body nested two million deep, sent without credentials, without parsing it', async () => {
    const { seen, providers } = guarded();
    const url = await listen(apps, adapter, { ...module(), providers });
    const pairs = (DEFAULT_MAX_BODY - nestedCall(3).length) / 2;
    const body = nestedCall(3 + Math.floor(pairs));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(DEFAULT_MAX_BODY);
    expect(pairs).toBeGreaterThan(2_000_000);

    const parse = jest.spyOn(JSON, 'parse');
    try {
      const answer = await post(`${url}/mcp`, body);
      expect({ status: answer.status, body: json(answer) }).toEqual({
        status: 400,
        body: TOO_DEEP,
      });
      // Nothing parsed the body: no JSON.parse was given text as long as it.
      const long = parse.mock.calls.filter(([text]) => String(text).length >= body.length / 2);
      expect(long).toHaveLength(0);
    } finally {
      parse.mockRestore();
    }
    expect(seen.guarded).toBe(0);

    // The next request is served as usual (the guard answers it).
    const unsigned = await post(`${url}/mcp`, nestedCall(4));
    expect(unsigned.status).toBe(401);
    expect(seen.guarded).toBe(1);
  });
});

describe('the MCP route body depth of a compressed or kept body (express)', () => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  /** A `tools/call` of `tenancy_echo` with an ignored argument nesting `extra` levels. */
  const call = (extra: number) =>
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tenancy_echo",' +
    `"arguments":{"text":"hi","extra":${'['.repeat(extra)}${']'.repeat(extra)}}}}`;
  const send = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    raw(`${url}/mcp`, { method: 'POST', headers: { ...HEADERS, ...headers }, body });

  it("reads a gzip body's depth once inflated: served within MAX_JSON_DEPTH, refused one level past it", async () => {
    const url = await listen(apps, 'express', module());
    const gzip = { 'content-encoding': 'gzip' };
    const served = await send(url, gzipSync(call(MAX_JSON_DEPTH - 3)), gzip);
    expect({ status: served.status, echoed: echoedLength(served) }).toEqual({
      status: 200,
      echoed: 2,
    });
    const refused = await send(url, gzipSync(call(MAX_JSON_DEPTH - 2)), gzip);
    expect({ status: refused.status, code: json(refused).error?.code }).toEqual({
      status: 400,
      code: -32700,
    });
    expect(json(refused).error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('with mcp.rawBody, refuses a body too deep as without it, and serves the next', async () => {
    const url = await listen(apps, 'express', module({ rawBody: true }));
    const refused = await send(url, call(MAX_JSON_DEPTH - 2));
    expect({ status: refused.status, code: json(refused).error?.code }).toEqual({
      status: 400,
      code: -32700,
    });
    const served = await send(url, call(4));
    expect(echoedLength(served)).toBe(2);
  });
});

describe('the MCP route body depth without a JSON parser (express, bodyParser: false)', () => {
  let app: INestApplication | undefined;
  afterAll(() => app?.close());

  it('the endpoint reads the body itself and refuses one nested too deep with 400 and -32700', async () => {
    const moduleRef = await Test.createTestingModule(module()).compile();
    app = moduleRef.createNestApplication({ bodyParser: false, logger: false });
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const call = (extra: string) =>
      post(
        `${url}/mcp`,
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tenancy_echo","arguments":{"text":"hi","extra":${extra}}}}`,
      );

    const served = await call('[[]]');
    expect({ status: served.status, echoed: echoedLength(served) }).toEqual({
      status: 200,
      echoed: 2,
    });
    const deep = MAX_JSON_DEPTH - 3 + 1;
    const refused = await call(`${'['.repeat(deep)}${']'.repeat(deep)}`);
    expect({ status: refused.status, code: json(refused).error?.code }).toEqual({
      status: 400,
      code: -32700,
    });
  });
});
