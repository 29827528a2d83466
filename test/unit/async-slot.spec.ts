import { describe, expect, it } from '@jest/globals';
import { AsyncSlot } from '../../lib/core/async-slot.js';
import { deferred } from '../fixtures/timing.js';

describe('AsyncSlot', () => {
  it('keeps the other slots’ values when one is set, inside and after awaits', async () => {
    const frame = new AsyncSlot<string>();
    const request = new AsyncSlot<string>();
    const seen: Array<[string | undefined, string | undefined]> = [];
    await request.run('request', async () => {
      await frame.run('frame', async () => {
        await Promise.resolve();
        seen.push([request.get(), frame.get()]);
        await request.run('inner request', async () => {
          await new Promise((resolve) => setImmediate(resolve));
          seen.push([request.get(), frame.get()]);
        });
        seen.push([request.get(), frame.get()]);
      });
      seen.push([request.get(), frame.get()]);
    });
    expect(seen).toEqual([
      ['request', 'frame'],
      ['inner request', 'frame'],
      ['request', 'frame'],
      ['request', undefined],
    ]);
    expect([request.get(), frame.get()]).toEqual([undefined, undefined]);
  });

  it('gives parallel flows their own values', async () => {
    const slot = new AsyncSlot<number>();
    const gate = deferred<void>();
    const flow = (n: number) =>
      slot.run(n, async () => {
        await gate.promise;
        return slot.get();
      });
    const both = Promise.all([flow(1), flow(2)]);
    gate.resolve();
    await expect(both).resolves.toEqual([1, 2]);
  });

  it('passes its argument and returns what fn returns, synchronously', () => {
    const slot = new AsyncSlot<string>();
    expect(slot.run('v', (n: number) => `${slot.get()}${n}`, 7)).toBe('v7');
    expect(slot.get()).toBeUndefined();
  });
});
