import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { RedisTaskStore } from '../../lib/redis/index.js';
import { redisClient, sharedRedis, startRedis } from '../fixtures/redis.js';
import { taskOf, taskStoreContract } from '../fixtures/task-store-contract.js';

let client: Redis;
let release: () => Promise<void>;
let store: RedisTaskStore;

beforeAll(async () => {
  const redis = await sharedRedis();
  release = redis.release;
  client = redisClient(redis.url);
  store = new RedisTaskStore({ redis: client, prefix: `task-store-${process.pid}-${Date.now()}:` });
});
afterAll(async () => {
  await client?.quit();
  await release?.();
});

taskStoreContract('RedisTaskStore', () => store);

describe('RedisTaskStore in a busy process', () => {
  it('takes an answer that came while the process was busy past the time: no timeout', async () => {
    const busy = new RedisTaskStore({
      redis: client,
      prefix: `busy-${process.pid}:`,
      commandTimeoutMs: 20,
    });
    const task = taskOf('alice');
    await client.ping();
    const created = busy.create(task);
    // The process is busy for longer than the time allowed, while Redis answers at once: the
    // answer waits in the socket, and the expired timer is due before the socket is read.
    const until = performance.now() + 250;
    while (performance.now() < until);
    await expect(created).resolves.toBeUndefined();
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
    await away.create(task);
    await redis.stop();
    for (const attempt of [
      () => away.get(task.taskId),
      () => away.create(taskOf('alice')),
      () => away.update({ ...task, status: 'completed' }),
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
    await away.create(task);
    expect(await away.get(task.taskId)).toEqual(task);
    own.disconnect();
    await redis.stop();
  });
});
