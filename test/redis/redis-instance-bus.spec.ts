import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { RedisInstanceBus } from '../../lib/redis/index.js';
import { redisClient, redisRelay, startRedis, type RedisServer } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

/**
 * The Redis instance bus against a real `redis-server` of this suite's own (it is stopped and
 * started again): two buses on two connections stand for two instances.
 */
describe('RedisInstanceBus', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  /** The subscriber connections the buses opened (ioredis's own), to look at and to close. */
  const subscribers: Redis[] = [];
  const errors: Error[] = [];
  /**
   * A bus on a client of its own. Its commands' ceiling is generous: a command Redis answers
   * never fails for a busy machine, and one to a Redis that is away fails by the client's retry
   * limit long before.
   */
  const bus = ({
    prefix = 'bus-test:',
    url = server.url,
    onError = (error: Error) => void errors.push(error),
    commandTimeoutMs = 10_000,
  } = {}) => {
    const client = redisClient(url);
    clients.push(client);
    const duplicate = client.duplicate.bind(client);
    client.duplicate = (override) => {
      const subscriber = duplicate(override);
      subscribers.push(subscriber);
      return subscriber;
    };
    return new RedisInstanceBus({ redis: client, prefix, commandTimeoutMs, onError });
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    // A test that failed may have left a subscription, whose connection would keep Jest running.
    const open = [...clients, ...subscribers].filter((client) => client.status !== 'end');
    await Promise.all(open.map((client) => client.quit().catch(() => client.disconnect())));
    await server.stop();
  });

  it('delivers a message to every instance’s listeners, the publisher’s included', async () => {
    const [a, b] = [bus(), bus()];
    const heard: string[] = [];
    const stops = await Promise.all([
      a.subscribe('news', (message) => heard.push(`a ${message}`)),
      b.subscribe('news', (message) => heard.push(`b ${message}`)),
      b.subscribe('other', (message) => heard.push(`other ${message}`)),
    ]);
    await a.publish('news', 'hello');
    expect(await waitFor(() => heard.length === 2)).toBe(true);
    expect(heard.sort()).toEqual(['a hello', 'b hello']);
    await Promise.all(stops.map((stop) => stop()));
  });

  it('keeps applications with different prefixes apart', async () => {
    const [mine, theirs] = [bus({ prefix: 'app-one:' }), bus({ prefix: 'app-two:' })];
    const heard: string[] = [];
    const stop = await mine.subscribe('news', (message) => heard.push(message));
    await theirs.publish('news', 'not for app one');
    await mine.publish('news', 'for app one');
    expect(await waitFor(() => heard.length > 0)).toBe(true);
    expect(heard).toEqual(['for app one']);
    await theirs.remember('key', 'theirs', 60_000);
    await expect(mine.recall('key')).resolves.toBeUndefined();
    await stop();
  });

  it('ends a subscription: its listener hears nothing more, the channel’s others still do', async () => {
    const [a, b] = [bus(), bus()];
    const heard: string[] = [];
    const stopFirst = await a.subscribe('news', (message) => heard.push(`first ${message}`));
    const stopSecond = await a.subscribe('news', (message) => heard.push(`second ${message}`));
    await stopFirst();
    await b.publish('news', 'after');
    expect(await waitFor(() => heard.length > 0)).toBe(true);
    await b.publish('news', 'marker');
    expect(await waitFor(() => heard.includes('second marker'))).toBe(true);
    expect(heard).toEqual(['second after', 'second marker']);
    await stopSecond();
  });

  it('a listener that throws is reported, and the others still hear the message', async () => {
    const a = bus();
    const heard: string[] = [];
    const before = errors.length;
    const stops = await Promise.all([
      a.subscribe('news', () => {
        throw new Error('listener failed');
      }),
      a.subscribe('news', (message) => heard.push(message)),
    ]);
    await a.publish('news', 'still heard');
    expect(await waitFor(() => heard.length === 1)).toBe(true);
    expect(errors.slice(before).map((error) => error.message)).toEqual(['listener failed']);
    await Promise.all(stops.map((stop) => stop()));
  });

  it('remembers a value for every instance until Redis expires it', async () => {
    const [a, b] = [bus(), bus()];
    await a.remember('declared', '1', 60_000);
    await expect(b.recall('declared')).resolves.toBe('1');
    await a.remember('brief', '1', 30);
    expect(await waitFor(async () => (await b.recall('brief')) === undefined)).toBe(true);
  });

  it('fails clearly while Redis is away, and works again once it is back', async () => {
    const [a, b] = [bus(), bus()];
    const heard: string[] = [];
    const stop = await b.subscribe('news', (message) => heard.push(message));
    await server.stop();
    for (const attempt of [
      () => a.publish('news', 'lost'),
      () => a.remember('declared', '1', 60_000),
      () => a.recall('declared'),
    ]) {
      await expect(attempt()).rejects.toThrow(/Redis|retries|Connection/);
    }
    await server.start();
    // The subscriber connection comes back and subscribes again on its own.
    expect(
      await waitFor(async () => {
        await a.publish('news', 'back').catch(() => undefined);
        return heard.includes('back');
      }),
    ).toBe(true);
    await a.remember('declared', '1', 60_000);
    await expect(b.recall('declared')).resolves.toBe('1');
    await stop();
  });

  it('ended while its SUBSCRIBE after a reconnection waits for Redis: closed at once, nothing left to reject', async () => {
    const relay = await redisRelay(server.port);
    const failures: Error[] = [];
    const opened = subscribers.length;
    const onError = (error: Error) => void failures.push(error);
    const stop = await bus({ url: relay.url, onError }).subscribe('news', () => undefined);
    const subscriber = subscribers[opened];
    // The bus's command connection is not used again: the test breaks its subscriber's alone.
    await clients.at(-1)!.quit();

    // The connection is lost and comes back, and Redis's replies are held from then on: the
    // SUBSCRIBE that restores the subscription waits for an answer that does not come.
    subscriber.once('ready', () => relay.hold());
    const ready = once(subscriber, 'ready');
    relay.drop();
    await ready;
    await stop();
    expect(await waitFor(() => subscriber.status === 'end')).toBe(true);
    // Redis goes away: nothing of the ended connection is still waiting to reject.
    relay.drop();
    await relay.close();
    expect(subscribers).toHaveLength(opened + 1);
    expect(failures).toEqual([]);
  });

  it('fails each command Redis does not answer after commandTimeoutMs', async () => {
    const relay = await redisRelay(server.port);
    const a = bus({ url: relay.url, commandTimeoutMs: 200 });
    const stop = await a.subscribe('news', () => undefined);
    await a.remember('held', '1', 60_000);
    // Connected, and nothing comes back: no retry limit ends the wait, only the ceiling.
    relay.hold();
    await expect(a.publish('news', 'unanswered')).rejects.toThrow(
      'Redis did not answer a PUBLISH within 200 ms.',
    );
    await expect(a.recall('held')).rejects.toThrow('Redis did not answer a GET within 200 ms.');
    await expect(a.subscribe('other', () => undefined)).rejects.toThrow(
      'Redis did not answer a SUBSCRIBE within 200 ms.',
    );
    // The bus's last subscription ends its connection without an answer; the test ends the other.
    const [client, subscriber] = [clients.at(-1)!, subscribers.at(-1)!];
    await stop();
    client.disconnect();
    await relay.close();
    expect(await waitFor(() => client.status === 'end' && subscriber.status === 'end')).toBe(true);
  });
});
