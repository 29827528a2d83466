/**
 * An endpoint on a Redis bus while Redis goes away and comes back: what must cross instances
 * gets a clear, retryable answer, what needs no bus is served as usual, nothing crashes, and
 * the bus works again afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import {
  ACCEPT,
  closeServer,
  initializeMessage,
  LEGACY_VERSION,
  rpc as rpcOf,
} from '../fixtures/mcp-http.js';
import { redisClient, startRedis, type RedisServer } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

const close = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) => ({ closed: await confirm(`Close ${input.id}?`) }),
});

const report = defineRuntimeTool({
  description: 'Build a report (as a task)',
  identity: { serviceName: 'desk', action: 'report', method: 'POST' },
  input: z.object({}),
  task: 'optional',
  handler: () => ({ rows: 3 }),
});

let redis: RedisServer;
let client: Redis;
let server: Server;
let listener: McpRequestListener;
let url: string;
const logged: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
  client = redisClient(redis.url);
  // Generous ceilings: an answered command never fails for a busy machine, and while Redis is
  // away the client's retry limit (`redisClient`) fails each command long before.
  listener = createMcpHttpHandler(createToolInvoker([close, report]), {
    identify: () => 'operator',
    bus: new RedisInstanceBus({
      redis: client,
      commandTimeoutMs: 10_000,
      onError: () => undefined,
    }),
    tasks: { store: new RedisTaskStore({ redis: client, commandTimeoutMs: 10_000 }) },
    logger: { error: (message: string) => logged.push(message) },
  });
  await listener.ready();
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
  client?.disconnect();
  await redis?.stop();
});

/** A 2025-era JSON-RPC request; resolves to its answer message. */
const rpc = (method: string, params: Record<string, unknown>) =>
  rpcOf(url, 'legacy', method, params);

const post = (body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: {
      accept: ACCEPT,
      'content-type': 'application/json',
      'mcp-protocol-version': LEGACY_VERSION,
    },
    body: JSON.stringify(body),
  });

/** An answer to a question another instance asked: this one passes it on over the bus. */
const answerFromElsewhere = () =>
  post({ jsonrpc: '2.0', id: 'tw-elicit-asked-elsewhere', result: { action: 'accept' } });

const initialize = () => post(initializeMessage({ elicitation: {} }, 'desk'));

describe('the instance bus’s Redis goes away and comes back', () => {
  let taskId: string;

  it('passes an answer on, and keeps a task, while Redis is up', async () => {
    const answered = await answerFromElsewhere();
    expect(answered.status).toBe(202);
    const created = await rpc('tools/call', { name: 'desk_report', arguments: {}, task: {} });
    taskId = created.result.task.taskId;
    expect(
      await waitFor(
        async () => (await rpc('tasks/get', { taskId })).result?.status === 'completed',
      ),
    ).toBe(true);
  });

  it('while it is away: an answer gets a retryable 503 that says why; an initialize is still served', async () => {
    await redis.stop();
    const answered = await answerFromElsewhere();
    expect(answered.status).toBe(503);
    expect(answered.headers.get('retry-after')).toBe('1');
    expect(await answered.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32603,
        message: 'The answer could not be passed to the instance running the call; retry it.',
      },
    });
    expect(logged).toContainEqual(expect.stringContaining('answer could not be passed'));

    const initialized = await initialize();
    expect(initialized.status).toBe(200);
    expect(await initialized.text()).toContain('"protocolVersion"');
    expect(logged).toContainEqual(
      expect.stringContaining('could not be noted on the instance bus'),
    );

    // Tasks cannot be read or made: a clear -32603, and no handler starts without its task.
    const unreachable = {
      code: -32603,
      message: 'The task store could not be reached; retry the request.',
    };
    expect((await rpc('tasks/get', { taskId })).error).toEqual(unreachable);
    expect(
      (await rpc('tools/call', { name: 'desk_report', arguments: {}, task: {} })).error,
    ).toEqual(unreachable);
    expect(logged).toContainEqual(expect.stringContaining('the task store did not answer'));
  });

  it('once it is back: the same answer is passed on again, and tasks are made again', async () => {
    await redis.start();
    expect(await waitFor(async () => (await answerFromElsewhere()).status === 202)).toBe(true);
    // Nothing was persisted: the task made before is gone; a new one runs.
    expect((await rpc('tasks/get', { taskId })).error?.code).toBe(-32602);
    const created = await rpc('tools/call', { name: 'desk_report', arguments: {}, task: {} });
    expect(created.result.task.status).toBe('working');
  });
});
