/**
 * What lib/mcp/sdk-workarounds.ts relies on in the installed MCP SDK beyond its documented
 * surface, checked against the SDK itself on both eras: a test here fails with the name of the
 * reliance that no longer holds, which is then the place to look after an SDK upgrade.
 */
import { describe, expect, it, jest } from '@jest/globals';
import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  createdTask,
  SurfaceServer,
  TaskCreated,
  taskUpdateResponses,
} from '../../lib/mcp/sdk-workarounds.js';
import { eraHeaders, messagesOf, MODERN_META, type Era } from '../fixtures/mcp-http.js';

const SERVER_INFO = { name: 'sdk-internals', version: '1.0.0' };
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const NOW = new Date(0).toISOString();

/** A handler of `Server._wrapHandler` (the SDK's type is protected). */
type Handler = (request: any, ctx: any) => Promise<any>;

/**
 * A test of one reliance: any failure is rethrown naming it, and the file that relies on it.
 */
function reliance(name: string, check: () => Promise<void> | void): void {
  it(name, async () => {
    try {
      await check();
    } catch (error) {
      throw new Error(
        `The installed MCP SDK changed what lib/mcp/sdk-workarounds.ts relies on: ${name}.\n` +
          String((error as Error)?.message ?? error),
        { cause: error },
      );
    }
  });
}

/** Sends one JSON-RPC request of an era through `createMcpHandler(factory)`; its last message. */
async function send(
  factory: McpServerFactory,
  era: Era,
  method: string,
  params: Record<string, unknown>,
  name?: string,
): Promise<{ result?: any; error?: any }> {
  const handler = createMcpHandler(factory);
  try {
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: eraHeaders(era, method, name),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params:
            era === 'modern' ? { ...params, _meta: { ...MODERN_META, ...metaOf(params) } } : params,
        }),
      }),
    );
    const messages = messagesOf(
      response.headers.get('content-type') ?? undefined,
      await response.text(),
    );
    return messages?.at(-1) ?? {};
  } finally {
    await handler.close();
  }
}

function metaOf(params: Record<string, unknown>): Record<string, unknown> {
  return (params._meta as Record<string, unknown> | undefined) ?? {};
}

/** A task's handle as a `tools/call` answers it on an era. */
function handleOf(era: Era): Record<string, unknown> {
  const task = { taskId: 'task-1', status: 'working', createdAt: NOW, lastUpdatedAt: NOW };
  return era === 'legacy'
    ? { task: { ...task, ttl: 60_000, pollInterval: 1_000 } }
    : { resultType: 'task', ...task, ttlMs: 60_000, pollIntervalMs: 1_000 };
}

const CAPABILITIES = { tools: { listChanged: false } };
const CALL = { name: 'probe', arguments: {} };
const OK = { content: [{ type: 'text', text: 'ok' }] };

describe.each(['legacy', 'modern'] as const)('the SDK, on the %s era', (era) => {
  reliance(
    'Server._wrapHandler is the protected hook every setRequestHandler goes through, called ' +
      'with the method and the handler, and what it returns answers the request',
    async () => {
      expect(typeof (Server.prototype as any)._wrapHandler).toBe('function');
      const calls: Array<[string, unknown]> = [];
      class Wrapping extends Server {
        protected override _wrapHandler(method: string, handler: Handler): Handler {
          calls.push([method, handler]);
          const wrapped = super._wrapHandler(method, handler) as Handler;
          if (method !== 'tools/list') return wrapped;
          return async (request, ctx) => ({
            tools: [],
            wrapped: (await wrapped(request, ctx)).tools,
          });
        }
      }
      const answer = await send(
        () => {
          const server = new Wrapping(SERVER_INFO, { capabilities: CAPABILITIES });
          server.setRequestHandler('tools/list', async () => ({ tools: [] }));
          return server;
        },
        era,
        'tools/list',
        {},
      );
      expect(calls).toContainEqual(['tools/list', expect.any(Function)]);
      expect(answer.error).toBeUndefined();
      expect(answer.result).toMatchObject({ tools: [], wrapped: [] });
    },
  );

  reliance(
    "the tools/call result check does not answer a task's handle as it is (else SurfaceServer " +
      'need not carry one past it): the 2025 era refuses it, the 2026 era adds an empty content',
    async () => {
      const answer = await send(
        () => {
          const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES });
          server.setRequestHandler('tools/call', async () => handleOf(era) as never);
          return server;
        },
        era,
        'tools/call',
        CALL,
        CALL.name,
      );
      if (era === 'legacy') {
        expect(answer.result).toBeUndefined();
        expect(answer.error?.code).toBe(ProtocolErrorCode.InvalidParams);
        expect(answer.error?.message).toMatch(/tools\/call result/);
      } else {
        expect(answer.error).toBeUndefined();
        expect(answer.result).toMatchObject({ ...handleOf(era), content: [] });
      }
    },
  );

  reliance(
    'the tools/call result check runs after the handler and passes on what it throws unchanged',
    async () => {
      const marker = { thrown: 'as it is' };
      const caught: unknown[] = [];
      class Catching extends Server {
        protected override _wrapHandler(method: string, handler: Handler): Handler {
          const checked = super._wrapHandler(method, handler) as Handler;
          return async (request, ctx) => {
            try {
              return await checked(request, ctx);
            } catch (error) {
              caught.push(error);
              return OK;
            }
          };
        }
      }
      const answer = await send(
        () => {
          const server = new Catching(SERVER_INFO, { capabilities: CAPABILITIES });
          server.setRequestHandler('tools/call', async () => {
            throw marker;
          });
          return server;
        },
        era,
        'tools/call',
        CALL,
        CALL.name,
      );
      expect(caught).toHaveLength(1);
      expect(caught[0]).toBe(marker);
      expect(answer.result?.content).toEqual(OK.content);
    },
  );
});

describe.each(['legacy', 'modern'] as const)('SurfaceServer, on the %s era', (era) => {
  const surfaceServer = (logger = { error: jest.fn() }) =>
    new SurfaceServer(undefined, logger, SERVER_INFO, { capabilities: CAPABILITIES });

  reliance("a task's handle made by createdTask is answered as it is", async () => {
    const handle = handleOf(era);
    const answer = await send(
      () => {
        const server = surfaceServer();
        server.setRequestHandler('tools/call', async () => createdTask({ ...handle }) as never);
        return server;
      },
      era,
      'tools/call',
      CALL,
      CALL.name,
    );
    expect(answer.error).toBeUndefined();
    const { _meta, ...result } = answer.result;
    expect(result).toEqual(handle);
    // The 2026 era stamps the server's identity on every result, this one too.
    if (era === 'modern')
      expect(Object.keys(_meta)).toEqual(['io.modelcontextprotocol/serverInfo']);
    else expect(_meta).toBeUndefined();
    expect(new TaskCreated(OK).result).toBe(OK);
  });

  reliance(
    'every handler answers only a ProtocolError as it is; anything else is -32603 "Internal error"',
    async () => {
      const logger = { error: jest.fn() };
      const listed = await send(
        () => {
          const server = surfaceServer(logger);
          server.setRequestHandler('tools/list', async () => {
            throw new Error('a secret of the process');
          });
          return server;
        },
        era,
        'tools/list',
        {},
      );
      expect(listed.error).toEqual({
        code: ProtocolErrorCode.InternalError,
        message: 'Internal error',
      });
      expect(logger.error).toHaveBeenCalledWith(
        '[toolwright] MCP tools/list failed:',
        expect.any(Error),
      );
      const refused = await send(
        () => {
          const server = surfaceServer(logger);
          server.setRequestHandler('tools/call', async () => {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'meant');
          });
          return server;
        },
        era,
        'tools/call',
        CALL,
        CALL.name,
      );
      expect(refused.error).toMatchObject({
        code: ProtocolErrorCode.InvalidParams,
        message: 'meant',
      });
    },
  );
});

describe('the SDK, on the modern era', () => {
  reliance(
    "a request's inputResponses are lifted out of its params into ctx.mcpReq.inputResponses, " +
      'for a tasks/update too',
    async () => {
      const seen: Array<{ params: unknown; responses: Record<string, unknown> }> = [];
      const responses = { q0: { action: 'accept', content: { priority: 'high' } } };
      const answer = await send(
        () => {
          const server = new Server(SERVER_INFO, {
            capabilities: { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } },
          });
          server.setRequestHandler(
            'tasks/update',
            { params: z.looseObject({ taskId: z.string() }) },
            async (params, ctx) => {
              seen.push({ params, responses: taskUpdateResponses(ctx) });
              return { resultType: 'complete' } as never;
            },
          );
          return server;
        },
        'modern',
        'tasks/update',
        {
          taskId: 'task-1',
          inputResponses: responses,
          _meta: {
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
          },
        },
        'task-1',
      );
      expect(answer.error).toBeUndefined();
      expect(seen).toHaveLength(1);
      expect(seen[0].responses).toEqual(responses);
      expect(seen[0].params).not.toHaveProperty('inputResponses');
    },
  );
});
