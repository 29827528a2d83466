import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { InMemoryInstanceBus } from '../../lib/core/instance-bus.js';

describe('InMemoryInstanceBus', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('delivers a message to every listener of its channel, at once, and to no other', async () => {
    const bus = new InMemoryInstanceBus();
    const heard: string[] = [];
    await bus.subscribe('a', (message) => heard.push(`first ${message}`));
    await bus.subscribe('a', (message) => heard.push(`second ${message}`));
    await bus.subscribe('b', (message) => heard.push(`b ${message}`));
    const published = bus.publish('a', 'hello');
    // Delivered before the publish even resolves: one process needs no round trip.
    expect(heard).toEqual(['first hello', 'second hello']);
    await published;
  });

  it('a listener that throws does not keep the message from the others', async () => {
    const bus = new InMemoryInstanceBus();
    const heard: string[] = [];
    await bus.subscribe('a', () => {
      throw new Error('listener failed');
    });
    await bus.subscribe('a', (message) => heard.push(message));
    await expect(bus.publish('a', 'still heard')).resolves.toBeUndefined();
    expect(heard).toEqual(['still heard']);
  });

  it('ends exactly the subscription it is asked to end, even for one listener subscribed twice', async () => {
    const bus = new InMemoryInstanceBus();
    const heard: string[] = [];
    const listener = (message: string) => heard.push(message);
    const stopFirst = await bus.subscribe('a', listener);
    await bus.subscribe('a', listener);
    await stopFirst();
    await stopFirst();
    await bus.publish('a', 'once');
    expect(heard).toEqual(['once']);
  });

  it('remembers a value until its time is up', async () => {
    jest.useFakeTimers({ now: 0 });
    const bus = new InMemoryInstanceBus();
    await bus.remember('caller', '1', 1_000);
    jest.setSystemTime(999);
    await expect(bus.recall('caller')).resolves.toBe('1');
    jest.setSystemTime(1_000);
    await expect(bus.recall('caller')).resolves.toBeUndefined();
    await expect(bus.recall('never kept')).resolves.toBeUndefined();
  });

  it('forgets the oldest values beyond maxKeys; remembering again makes a value the newest', async () => {
    const bus = new InMemoryInstanceBus({ maxKeys: 2 });
    await bus.remember('a', '1', 60_000);
    await bus.remember('b', '2', 60_000);
    await bus.remember('a', '3', 60_000);
    await bus.remember('c', '4', 60_000);
    expect(await Promise.all(['a', 'b', 'c'].map((key) => bus.recall(key)))).toEqual([
      '3',
      undefined,
      '4',
    ]);
  });
});
