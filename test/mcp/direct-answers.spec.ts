import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineRuntimeTool, ToolError, ToolsModule, type ToolGuard } from '../../lib/index.js';
import { McpService } from '../../lib/nest/mcp/mcp.service.js';

/**
 * The endpoint answers tools/list and plain tools/call itself; the SDK server stays the
 * reference. Every request here is sent to an app answering directly and to one routing
 * everything through the SDK, and the answers must be the same.
 */
const identity = (action: string) => ({ serviceName: 'demo', action, method: 'GET' as const });
const tools = [
  defineRuntimeTool({
    name: 'echo',
    description: 'Echo text',
    identity: identity('echo'),
    input: z.object({ text: z.string(), n: z.number().optional() }),
    output: z.object({ text: z.string() }),
    handler: ({ input }) => ({ text: input.text }),
  }),
  defineRuntimeTool({
    name: 'plain',
    description: 'No output schema',
    identity: identity('plain'),
    input: z.object({}),
    handler: () => ({ anything: [1, 'two'] }),
  }),
  defineRuntimeTool({
    name: 'nothing',
    description: 'Returns nothing',
    identity: identity('nothing'),
    input: z.object({}),
    handler: () => undefined,
  }),
  defineRuntimeTool({
    name: 'chatty',
    description: 'Logs twice',
    identity: identity('chatty'),
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    handler: ({ log }) => {
      log.info('first');
      log.warning('second', { detail: 2 });
      return { ok: true };
    },
  }),
  defineRuntimeTool({
    name: 'refuses',
    description: 'Throws a ToolError',
    identity: identity('refuses'),
    input: z.object({}),
    handler: () => {
      throw new ToolError('CONFLICT', {
        message: 'Locked',
        details: { id: 7 },
        hint: 'Retry later',
      });
    },
  }),
  defineRuntimeTool({
    name: 'crashes',
    description: 'Throws an Error',
    identity: identity('crashes'),
    input: z.object({}),
    handler: () => {
      throw new Error('db at 10.0.0.4 failed');
    },
  }),
];

function appModule(directAnswers: boolean) {
  @Module({ imports: [ToolsModule.forRoot({ registry: tools, mcp: { directAnswers } })] })
  class AppModule {}
  return AppModule;
}

const ACCEPT = 'application/json, text/event-stream';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface RawRequest {
  headers: Record<string, string>;
  body: unknown;
}

function legacy(method: string, params?: Record<string, unknown>): RawRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2025-06-18',
    },
    body: { jsonrpc: '2.0', id: 1, method, ...(params && { params }) },
  };
}

function modern(method: string, params: Record<string, unknown> = {}): RawRequest {
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' && { 'mcp-name': params.name }),
    },
    body: { jsonrpc: '2.0', id: 'r-1', method, params: { ...params, _meta: envelope } },
  };
}

/** Status, content type and the JSON-RPC messages of an answer (SSE frames or one JSON body). */
async function answer(url: string, request: RawRequest) {
  const response = await fetch(url, {
    method: 'POST',
    headers: request.headers,
    body: JSON.stringify(request.body),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const messages = type.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)))
    : [JSON.parse(text)];
  return { status: response.status, type: type.split(';')[0], messages };
}

const cases: [string, RawRequest][] = [];
for (const [era, build] of [
  ['2025', legacy],
  ['2026', modern],
] as const) {
  cases.push(
    [`${era} tools/list`, build('tools/list')],
    [
      `${era} call with structured output`,
      build('tools/call', { name: 'echo', arguments: { text: 'hi', n: 2 } }),
    ],
    [`${era} call without output schema`, build('tools/call', { name: 'plain', arguments: {} })],
    [`${era} call returning nothing`, build('tools/call', { name: 'nothing' })],
    [`${era} call that logs`, build('tools/call', { name: 'chatty', arguments: {} })],
    [`${era} invalid input`, build('tools/call', { name: 'echo', arguments: { text: 5 } })],
    [`${era} ToolError`, build('tools/call', { name: 'refuses', arguments: {} })],
    [`${era} unexpected error`, build('tools/call', { name: 'crashes', arguments: {} })],
  );
}

describe('direct answers and SDK answers are the same', () => {
  let direct: INestApplication;
  let sdk: INestApplication;
  let directUrl: string;
  let sdkUrl: string;

  beforeAll(async () => {
    const boot = async (answersDirectly: boolean) => {
      const moduleRef = await Test.createTestingModule({
        imports: [appModule(answersDirectly)],
      }).compile();
      const app = moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      return { app, url: `${await app.getUrl()}/mcp` };
    };
    ({ app: direct, url: directUrl } = await boot(true));
    ({ app: sdk, url: sdkUrl } = await boot(false));
  });
  afterAll(async () => {
    await direct?.close();
    await sdk?.close();
  });

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
    const unknown = await answer(directUrl, legacy('tools/call', { name: 'ecoh', arguments: {} }));
    expect(unknown.messages[0].error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"echo"'),
    });
    const withProgress = await answer(
      directUrl,
      legacy('tools/call', {
        name: 'echo',
        arguments: { text: 'a' },
        _meta: { progressToken: 'p1' },
      }),
    );
    expect(withProgress.messages.at(-1).result.structuredContent).toEqual({ text: 'a' });
    expect(connect).toHaveBeenCalledTimes(2);
    connect.mockRestore();
  });
});

describe('a tools/list every caller sees', () => {
  /** A Node response that records what is written to it. */
  function recordingResponse() {
    const written: string[] = [];
    const response = {
      headersSent: false,
      writableEnded: false,
      writeHead(status: number) {
        written.push(`status ${status}`);
        this.headersSent = true;
      },
      cork() {},
      write(chunk: Buffer | string) {
        written.push(String(chunk));
      },
      end(chunk?: Buffer | string) {
        if (chunk !== undefined) written.push(String(chunk));
        this.writableEnded = true;
      },
      on() {},
    };
    return { response, written };
  }
  const listRequest = (tenant: string) => ({
    method: 'POST',
    url: '/mcp',
    headers: { ...legacy('tools/list').headers, host: 'localhost', 'x-tenant-id': tenant },
    body: legacy('tools/list').body,
  });
  const hidesCrashes: ToolGuard = {
    canActivate: () => true,
    canList: (tool, context) => tool.name !== 'crashes' || context.tenantId === 'ops',
  };

  async function service(guards: ToolGuard[]) {
    const resolve = jest.fn((request: any) => ({ tenantId: request.headers['x-tenant-id'] }));
    @Module({ imports: [ToolsModule.forRoot({ registry: tools, guards, context: resolve })] })
    class AppModule {}
    const app = (
      await Test.createTestingModule({ imports: [AppModule] }).compile()
    ).createNestApplication({ logger: false });
    await app.init();
    return { app, mcp: app.get(McpService), resolve };
  }

  it('is written before handle returns, without resolving a context', async () => {
    const { app, mcp, resolve } = await service([]);
    try {
      const { response, written } = recordingResponse();
      expect(mcp.handle(listRequest('acme') as any, response as any)).toBeUndefined();
      expect(written[0]).toBe('status 200');
      expect(written.join('')).toContain('"name":"crashes"');
      expect(response.writableEnded).toBe(true);
      expect(resolve).not.toHaveBeenCalled();
    } finally {
      await app.close();
    }
  });

  it('is awaited and filtered per caller when a guard has canList', async () => {
    const { app, mcp } = await service([hidesCrashes]);
    try {
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
    } finally {
      await app.close();
    }
  });
});
