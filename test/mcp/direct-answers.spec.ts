import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Module } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule, type ToolGuard } from '../../lib/index.js';
import { deferred } from '../fixtures/timing.js';
import { directAnswersModule, directOperations, directTools } from '../fixtures/direct-tools.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import {
  callBody,
  eraHeaders,
  listBody,
  MODERN_META,
  post,
  toolPayload,
  type Answer,
  type Era,
} from '../fixtures/mcp-http.js';
import { McpService } from '../../lib/nest/mcp/mcp.service.js';

/**
 * The endpoint answers tools/list and plain tools/call itself; the SDK server stays the
 * reference. Every request here is sent to an app answering directly and to one routing
 * everything through the SDK, and the answers must be the same.
 */
/** A raw request: its era's headers and JSON-RPC body (test/fixtures/mcp-http.ts). */
interface RawRequest {
  headers: Record<string, string>;
  body: string;
}

const ID = { legacy: 1, modern: 'r-1' } as const;
const list = (era: Era): RawRequest => ({
  headers: eraHeaders(era, 'tools/list'),
  body: listBody(era, ID[era]),
});
const call = (era: Era, name: string, args?: unknown, meta = {}): RawRequest => ({
  headers: eraHeaders(era, 'tools/call', name),
  body: callBody(era, name, args, ID[era], meta),
});

/** What must be the same on both paths: status, content type and the JSON-RPC messages. */
async function answer(url: string, request: RawRequest) {
  const sent: Answer = await post(url, request.body, request.headers);
  const type = String(sent.headers['content-type'] ?? '').split(';')[0];
  return { status: sent.status, type, messages: sent.messages! };
}

const cases: [string, RawRequest][] = [];
for (const [label, era] of [
  ['2025', 'legacy'],
  ['2026', 'modern'],
] as const) {
  cases.push(
    [`${label} tools/list`, list(era)],
    [`${label} call with structured output`, call(era, 'echo', { text: 'hi', n: 2 })],
    [`${label} call without output schema`, call(era, 'plain', {})],
    [`${label} call returning nothing`, call(era, 'nothing')],
    [`${label} call that logs`, call(era, 'chatty', {})],
    [`${label} invalid input`, call(era, 'echo', { text: 5 })],
    [`${label} ToolError`, call(era, 'refuses', {})],
    [`${label} unexpected error`, call(era, 'crashes', {})],
  );
}

describe('direct answers and SDK answers are the same', () => {
  const apps = new TestApps();
  let directUrl: string;
  let sdkUrl: string;

  beforeAll(async () => {
    const boot = async (answersDirectly: boolean) =>
      `${(await apps.listen({ imports: [directAnswersModule(answersDirectly)] })).url}/mcp`;
    directUrl = await boot(true);
    sdkUrl = await boot(false);
  });
  afterAll(() => apps.closeAll());

  it.each(cases)('%s', async (_name, request) => {
    const connect = jest.spyOn(Server.prototype, 'connect');
    const fromDirect = await answer(directUrl, request);
    expect(connect).not.toHaveBeenCalled();
    const fromSdk = await answer(sdkUrl, request);
    expect(connect).toHaveBeenCalled();
    connect.mockRestore();

    expect(fromDirect).toEqual(fromSdk);
    expect(fromDirect.status).toBe(200);
    expect(JSON.stringify(fromDirect)).not.toContain('10.0.0.4');
  });

  it('leaves everything else to the SDK: unknown tools, progress tokens, batches', async () => {
    const connect = jest.spyOn(Server.prototype, 'connect');
    const unknown = await answer(directUrl, call('legacy', 'ecoh', {}));
    expect(unknown.messages[0].error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"echo"'),
    });
    const withProgress = await answer(
      directUrl,
      call('legacy', 'echo', { text: 'a' }, { progressToken: 'p1' }),
    );
    expect(withProgress.messages.at(-1).result.structuredContent).toEqual({ text: 'a' });
    expect(connect).toHaveBeenCalledTimes(2);
    connect.mockRestore();
  });
});

/** A Node response that records what is written to it, and whether anyone listens to it. */
function recordingResponse() {
  const written: string[] = [];
  const response = {
    headersSent: false,
    writableEnded: false,
    destroyed: false,
    writableFinished: false,
    writeHead(status: number) {
      written.push(`status ${status}`);
      this.headersSent = true;
    },
    cork() {},
    write: (chunk: Buffer | string) => void written.push(String(chunk)),
    end(chunk?: Buffer | string) {
      if (chunk !== undefined) written.push(String(chunk));
      this.writableEnded = true;
    },
    on: jest.fn(),
    once: jest.fn(),
  };
  return { response, written };
}

/** A tool without input that answers what `handler` returns. */
function demoTool(name: string, description: string, handler: () => unknown) {
  return defineRuntimeTool({
    name,
    description,
    identity: { serviceName: 'demo', action: name, method: 'GET' },
    input: z.object({}),
    handler,
  });
}

describe('a tools/list every caller sees', () => {
  const listRequest = (tenant: string) => ({
    method: 'POST',
    url: '/mcp',
    headers: { ...list('legacy').headers, host: 'localhost', 'x-tenant-id': tenant },
    body: JSON.parse(list('legacy').body),
  });
  const hidesCrashes: ToolGuard = {
    canActivate: () => true,
    canList: (tool, context) => tool.name !== 'crashes' || context.tenantId === 'ops',
  };

  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  async function service(guards: ToolGuard[]) {
    const resolve = jest.fn((request: any) => ({ tenantId: request.headers['x-tenant-id'] }));
    @Module({ imports: [ToolsModule.forRoot({ registry: directTools, guards, context: resolve })] })
    class AppModule {}
    const app = await apps.init({ imports: [AppModule] });
    return { mcp: app.get(McpService), resolve };
  }

  it('is written before handle returns, without resolving a context', async () => {
    const { mcp, resolve } = await service([]);
    const { response, written } = recordingResponse();
    expect(mcp.handle(listRequest('acme') as any, response as any)).toBeUndefined();
    expect(written[0]).toBe('status 200');
    expect(written.join('')).toContain('"name":"crashes"');
    expect(response.writableEnded).toBe(true);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('is awaited and filtered per caller when a guard has canList', async () => {
    const { mcp } = await service([hidesCrashes]);
    for (const [tenant, listed] of [
      ['acme', false],
      ['ops', true],
    ] as const) {
      const { response, written } = recordingResponse();
      const pending = mcp.handle(listRequest(tenant) as any, response as any);
      expect(pending).toBeInstanceOf(Promise);
      await pending;
      expect(written[0]).toBe('status 200');
      expect(written.join('').includes('"name":"crashes"')).toBe(listed);
      expect(written.join('')).toContain('"name":"echo"');
    }
  });
});

describe('a tools/call the endpoint answers itself', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  const callRequest = (era: Era, name: string, args: object) => ({
    method: 'POST',
    url: '/mcp',
    headers: { ...call(era, name, args).headers, host: 'localhost' },
    body: JSON.parse(call(era, name, args).body),
  });

  it.each(['legacy', 'modern'] as const)(
    'is written before handle returns when its handler never waits (%s), listening to nothing',
    async (era) => {
      const app = await apps.init({ imports: [ToolsModule.forRoot({ registry: directTools })] });
      const { response, written } = recordingResponse();
      const mcp = app.get(McpService);
      expect(mcp.handle(callRequest(era, 'echo', { text: 'now' }) as any, response as any)).toBe(
        undefined,
      );
      expect(written[0]).toBe('status 200');
      expect(written.join('')).toContain('"structuredContent":{"text":"now"}');
      expect(response.writableEnded).toBe(true);
      // Nothing waited, so nothing could cancel the call: no listener on the response.
      expect(response.on).not.toHaveBeenCalled();
      expect(response.once).not.toHaveBeenCalled();
    },
  );

  it.each(['legacy', 'modern'] as const)(
    'and so is a resources/read whose read never waits (%s)',
    async (era) => {
      const app = await apps.init({
        imports: [ToolsModule.forRoot({ registry: [...directTools, ...directOperations] })],
      });
      const { response, written } = recordingResponse();
      const uri = 'demo://notes/7';
      const request = {
        method: 'POST',
        url: '/mcp',
        headers: { ...eraHeaders(era, 'resources/read', uri), host: 'localhost' },
        body: {
          jsonrpc: '2.0',
          id: 3,
          method: 'resources/read',
          params: { uri, ...(era === 'modern' && { _meta: MODERN_META }) },
        },
      };
      expect(app.get(McpService).handle(request as any, response as any)).toBe(undefined);
      expect(written[0]).toBe('status 200');
      expect(written.join('')).toContain('"text":"note 7"');
      expect(response.once).not.toHaveBeenCalled();
    },
  );

  it('is awaited when its handler waits, and listens for the client going away meanwhile', async () => {
    const release = deferred();
    const app = await apps.init({
      imports: [
        ToolsModule.forRoot({
          registry: [
            demoTool('slow', 'Answers once released', async () => {
              await release.promise;
              return { done: true };
            }),
          ],
        }),
      ],
    });
    const { response, written } = recordingResponse();
    const pending = app
      .get(McpService)
      .handle(callRequest('legacy', 'slow', {}) as any, response as any);
    expect(pending).toBeInstanceOf(Promise);
    expect(response.once).toHaveBeenCalledWith('close', expect.any(Function));
    expect(written).toEqual([]);
    release.resolve();
    await pending;
    expect(written.join('')).toContain('{\\"done\\":true}');
  });

  it.each(ADAPTERS)(
    'is cancelled by a 2025-era notifications/cancelled that arrives while its context resolves (%s)',
    async (adapter) => {
      const resolving = deferred();
      const resolveContext = deferred<{ tenantId: string }>();
      let runs = 0;
      const { url } = await apps.listen(
        {
          imports: [
            ToolsModule.forRoot({
              registry: [demoTool('count', 'Counts its runs', () => ({ runs: ++runs }))],
              context: () => {
                resolving.resolve();
                return resolveContext.promise;
              },
              // One caller, known without the context: its cancellation finds its call.
              mcp: { identify: () => 'operator' },
            }),
          ],
        },
        adapter,
      );
      const answer = post(`${url}/mcp`, callBody('legacy', 'count', {}, 41), eraHeaders('legacy'));
      await resolving.promise;
      const cancelled = await post(
        `${url}/mcp`,
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 41, reason: 'stop' },
        }),
        eraHeaders('legacy'),
      );
      expect(cancelled.status).toBe(202);
      resolveContext.resolve({ tenantId: 'acme' });
      const result = toolPayload(await answer);
      expect(result).toEqual({
        isError: true,
        json: expect.objectContaining({ error: 'REQUEST_ABORTED' }),
      });
      expect(runs).toBe(0);
    },
  );
});

describe('the 2026-era classification the direct path remembers', () => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  it('is not reused for an envelope JSON text cannot hold, though it writes the same JSON', async () => {
    // A JSON parser whose reviver makes dates, as applications install: `date:0` becomes a Date,
    // whose JSON is the string of a valid client version.
    const app = await apps.create(
      { imports: [ToolsModule.forRoot({ registry: directTools })] },
      'fastify',
    );
    await app.init();
    const fastify = app.getHttpAdapter().getInstance();
    fastify.removeContentTypeParser('application/json');
    fastify.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      (_request: unknown, body: string, done: (error: null, value: unknown) => void) =>
        done(
          null,
          JSON.parse(body, (_key, value) =>
            value === 'date:0' ? new Date(0) : (value as unknown),
          ),
        ),
    );
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const withVersion = (version: string) =>
      post(
        url,
        callBody('modern', 'echo', { text: 'hi' }, 'r-1', {
          'io.modelcontextprotocol/clientInfo': { name: 'dates', version },
        }),
        eraHeaders('modern', 'tools/call', 'echo'),
      );

    const valid = await withVersion(new Date(0).toJSON());
    expect(valid.status).toBe(200);
    expect(valid.messages!.at(-1).result.structuredContent).toEqual({ text: 'hi' });

    // The SDK refuses a client version that is not a string; so must the direct path.
    const revived = await withVersion('date:0');
    expect(revived.status).toBe(400);
    expect(revived.messages!.at(-1).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('clientInfo'),
    });
  });
});
