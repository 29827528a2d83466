import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisTaskStore } from '../../lib/redis/index.js';
import type { RedisClient } from '../../lib/redis/redis-client.js';
import { redisClient, sharedRedis, startRedis } from '../fixtures/redis.js';
import { taskOf, taskStoreContract } from '../fixtures/task-store-contract.js';
import { waitFor } from '../fixtures/timing.js';

const PREFIX = `task-store-${process.pid}-${Date.now()}:`;

let client: Redis;
let release: () => Promise<void>;
let store: RedisTaskStore;

beforeAll(async () => {
  const redis = await sharedRedis();
  release = redis.release;
  client = redisClient(redis.url);
  store = new RedisTaskStore({ redis: client, prefix: PREFIX });
});
afterAll(async () => {
  await client?.quit();
  await release?.();
});

taskStoreContract('RedisTaskStore', () => store);

describe("RedisTaskStore: an owner's indexes hold no expired task", () => {
  /** The ids each index of the owner holds: by creation, by expiry, and the live ones. */
  const indexes = (owner: string) =>
    Promise.all(
      ['tasks-of', 'tasks-expiring', 'tasks-live'].map((index) =>
        client.zrange(`${PREFIX}toolwright:${index}:${owner}`, 0, -1),
      ),
    );

  /** Creates `count` tasks of `owner` kept 30 ms; resolves once they are gone. */
  async function expired(owner: string, count: number): Promise<void> {
    // Created in the past, as a task is stored just after its creation: its hash expires last.
    const brief = Array.from({ length: count }, (_, i) =>
      taskOf(owner, { ttlMs: 30, createdAt: Date.now() - count + i }),
    );
    for (const task of brief) await store.create(task, { maxLive: 1_000 });
    const gone = async () =>
      (await Promise.all(brief.map((task) => store.get(task.taskId)))).every((t) => !t);
    expect(await waitFor(gone)).toBe(true);
  }

  it("the owner's next task drops the ids of those whose time is up, in its own write", async () => {
    const owner = `expiring-${randomUUID()}`;
    await expired(owner, 5);
    const kept = taskOf(owner);
    await store.create(kept, { maxLive: 1_000 });
    expect(await indexes(owner)).toEqual([[kept.taskId], [kept.taskId], [kept.taskId]]);
  });

  it('a listing reads no expired task: two commands for a page, however many died', async () => {
    const owner = `listed-${randomUUID()}`;
    const kept = taskOf(owner, { createdAt: Date.now() - 1_000 });
    await store.create(kept, { maxLive: 1_000 });
    await expired(owner, 20);
    const counted = countingClient(client);
    const lister = new RedisTaskStore({ redis: counted.redis, prefix: PREFIX });
    expect(await lister.list(owner, { limit: 10 })).toEqual({ tasks: [kept] });
    expect(counted.commands()).toBeLessThanOrEqual(2);
    expect(await indexes(owner)).toEqual([[kept.taskId], [kept.taskId], [kept.taskId]]);
  });
});

/** A client that counts the commands sent through it. */
function countingClient(redis: Redis): { redis: RedisClient; commands: () => number } {
  let commands = 0;
  const counting = new Proxy(redis, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        commands++;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { redis: counting as unknown as RedisClient, commands: () => commands };
}

describe('RedisTaskStore in a busy process', () => {
  it('takes an answer that came while the process was busy past the time: no timeout', async () => {
    const busy = new RedisTaskStore({
      redis: client,
      prefix: `busy-${process.pid}:`,
      commandTimeoutMs: 20,
    });
    const task = taskOf('alice');
    await client.ping();
    const created = busy.create(task, { maxLive: 10 });
    // The process is busy for longer than the time allowed, while Redis answers at once: the
    // answer waits in the socket, and the expired timer is due before the socket is read.
    const until = performance.now() + 250;
    while (performance.now() < until);
    await expect(created).resolves.toBe(true);
    const read = busy.get(task.taskId);
    const later = performance.now() + 250;
    while (performance.now() < later);
    await expect(read).resolves.toEqual(task);
  });
});

describe('RedisTaskStore while Redis is away', () => {
  it('fails each operation within its time, then works again once Redis is back', async () => {
    const redis = await startRedis();
    const own = redisClient(redis.url);
    const away = new RedisTaskStore({ redis: own, commandTimeoutMs: 10_000 });
    const task = taskOf('alice');
    await away.create(task, { maxLive: 10 });
    await redis.stop();
    for (const attempt of [
      () => away.get(task.taskId),
      () => away.create(taskOf('alice'), { maxLive: 10 }),
      () => away.update({ ...task, status: 'completed' }),
      () => away.renew(task, Date.now() + 30_000),
      () => away.list('alice', { limit: 5 }),
    ]) {
      await expect(attempt()).rejects.toThrow(/Redis|retries|Connection/);
    }
    await redis.start();
    // Nothing was persisted: the restarted Redis is empty, and serves again.
    let fresh: unknown = 'not yet';
    for (let i = 0; i < 200 && fresh === 'not yet'; i++) {
      fresh = await away.get(task.taskId).catch(() => 'not yet');
      if (fresh === 'not yet') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(fresh).toBeUndefined();
    await away.create(task, { maxLive: 10 });
    expect(await away.get(task.taskId)).toEqual(task);
    own.disconnect();
    await redis.stop();
  });
});
