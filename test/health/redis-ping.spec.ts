/**
 * How the Redis parts answer a readiness check's `ping()`: a connection known to be down fails
 * at once, without a command; a Redis that takes no answer fails after `commandTimeoutMs`; a
 * client without `ping` is pinged with a script.
 */
import { describe, expect, it } from '@jest/globals';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import type { RedisClient } from '../../lib/redis/redis-client.js';

/** A client whose commands are counted; `answer` says what PING and EVAL do. */
function fakeClient(status: string | undefined, answer: () => Promise<unknown>) {
  const sent: string[] = [];
  const client = {
    status,
    ping: () => (sent.push('PING'), answer()),
    eval: (script: string) => (sent.push(`EVAL ${script}`), answer()),
  } as unknown as RedisClient;
  return { client, sent };
}

describe.each([
  [
    'RedisInstanceBus',
    (redis: RedisClient) => new RedisInstanceBus({ redis, commandTimeoutMs: 50 }),
  ],
  ['RedisTaskStore', (redis: RedisClient) => new RedisTaskStore({ redis, commandTimeoutMs: 50 })],
])('%s.ping()', (_name, make) => {
  it('resolves when Redis answers a PING', async () => {
    const { client, sent } = fakeClient('ready', async () => 'PONG');
    await expect(make(client).ping()).resolves.toBeUndefined();
    expect(sent).toEqual(['PING']);
  });

  it.each(['reconnecting', 'close', 'end'])(
    'fails at once, sending nothing, while the connection is %s',
    async (status) => {
      const { client, sent } = fakeClient(status, () => new Promise(() => {}));
      await expect(make(client).ping()).rejects.toThrow(
        `Redis is not connected (the connection is ${status}).`,
      );
      expect(sent).toEqual([]);
    },
  );

  it('fails after commandTimeoutMs when Redis takes the PING and never answers', async () => {
    const { client } = fakeClient('ready', () => new Promise(() => {}));
    await expect(make(client).ping()).rejects.toThrow('Redis did not answer a PING within 50 ms.');
  });

  it('pings a client without `ping` with a one-line script', async () => {
    const { client, sent } = fakeClient(undefined, async () => 'PONG');
    delete (client as { ping?: unknown }).ping;
    await make(client).ping();
    expect(sent).toEqual(["EVAL return 'PONG'"]);
  });
});
