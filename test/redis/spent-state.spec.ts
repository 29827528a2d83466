/**
 * What makes a 2026-07-28 `requestState` single-use across instances, against a real Redis:
 * the bus's `rememberIfAbsent` (`SET NX PX`), which of instances claiming one key at the same
 * time gives it to one; and two endpoints, each with a Redis bus of its own as two processes
 * have, where a state spent on one is refused on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { createToolInvoker } from '../../lib/core/index.js';
import { InMemoryInstanceBus, type InstanceBus } from '../../lib/core/instance-bus.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import { RedisInstanceBus } from '../../lib/redis/index.js';
import { closeRound, deskClose } from '../fixtures/desk-close.js';
import { closeServer, identifyByAuthorization } from '../fixtures/mcp-http.js';
import { redisClient, sharedRedis } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

const PREFIX = `spent-state-${process.pid}-${Date.now()}:`;
const clients: Redis[] = [];
let redisUrl: string;
let release: () => Promise<void>;

beforeAll(async () => {
  ({ url: redisUrl, release } = await sharedRedis());
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  await release?.();
});

/** A Redis bus on a connection of its own, as another process would have. */
function redisBus(): RedisInstanceBus {
  const client = redisClient(redisUrl);
  clients.push(client);
  return new RedisInstanceBus({ redis: client, prefix: PREFIX });
}

describe.each([
  ['RedisInstanceBus', redisBus],
  ['InMemoryInstanceBus', () => new InMemoryInstanceBus()],
] as const)('%s.rememberIfAbsent', (_name, made) => {
  it('of instances claiming one key at the same time, one gets it; it is free again once its time is up', async () => {
    const first = made();
    // Two instances of Redis share the keys; one process has one in-memory bus.
    const buses: InstanceBus[] = first instanceof RedisInstanceBus ? [first, made()] : [first];
    const key = `claim-${Math.random()}`;
    // Long enough that the winner is still there when read back on a busy machine, short
    // enough to wait out.
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        buses[i % buses.length].rememberIfAbsent(key, `${i}`, 1_000),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims.indexOf(true);
    expect(await buses[0].recall(key)).toBe(`${winner}`);
    expect(await waitFor(() => buses[0].rememberIfAbsent(key, 'again', 60_000))).toBe(true);
    expect(await buses.at(-1)!.recall(key)).toBe('again');
  });
});

describe('a requestState spent through one instance, on Redis', () => {
  const { tool: close, closed } = deskClose();
  const listeners: McpRequestListener[] = [];
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(listeners.map((listener) => listener.close({ graceMs: 0 })));
    await Promise.all(servers.map((server) => closeServer(server)));
  });

  async function instance(): Promise<string> {
    const listener = createMcpHttpHandler(createToolInvoker([close]), {
      requestState: { key: 'a shared key of at least 32 bytes, for every instance' },
      identify: identifyByAuthorization,
      bus: redisBus(),
    });
    listeners.push(listener);
    await listener.ready();
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  const round = (url: string, state?: string) => closeRound(url, 'T-1', state);

  it('is refused by the other (-32602): the ticket is closed once', async () => {
    const [a, b] = [await instance(), await instance()];
    const state = (await round(a)).result.requestState as string;
    expect((await round(b, state)).result).toMatchObject({ resultType: 'complete' });
    expect((await round(a, state)).error).toEqual({
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'invalid_request_state' },
    });
    expect(closed).toEqual(['T-1']);
  });
});
