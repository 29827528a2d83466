/**
 * What a drain tells of itself: the work in flight when it starts (at once, before it is over),
 * and, once it is over, how much the grace period cut off. Closing again joins the first close.
 */
import { describe, expect, it } from '@jest/globals';
import { Drain } from '../../lib/core/drain.js';

describe('Drain reports', () => {
  it('counts the work in flight as it enters and leaves, leaving twice counted once', () => {
    const drain = new Drain();
    const a = drain.enter();
    const b = drain.enter();
    expect(drain.size).toBe(2);
    drain.leave(a);
    drain.leave(a);
    expect(drain.size).toBe(1);
    drain.leave(b);
    expect(drain.size).toBe(0);
  });

  it('tells at once how much was in flight, and that nothing was cut off when all of it finished', async () => {
    const drain = new Drain();
    const work = [drain.enter(), drain.enter(), drain.enter()];
    const closing = drain.close(60 * 60_000);
    expect(closing.inFlight).toBe(3);
    for (const entry of work) drain.leave(entry);
    await expect(closing.report).resolves.toEqual({ inFlight: 3, cutOff: 0, graceMs: 3_600_000 });
    await expect(closing).resolves.toBeUndefined();
  });

  it('counts what the grace period cut off, each piece aborted', async () => {
    const drain = new Drain();
    const aborted: string[] = [];
    drain.enter({ abort: () => aborted.push('a') });
    const done = drain.enter();
    drain.enter({ abort: () => aborted.push('c') });
    const closing = drain.close(0);
    drain.leave(done);
    await expect(closing.report).resolves.toEqual({ inFlight: 3, cutOff: 2, graceMs: 0 });
    expect(aborted.sort()).toEqual(['a', 'c']);
  });

  it('joins the first close: one report', () => {
    const drain = new Drain();
    drain.enter();
    const first = drain.close(0);
    expect(drain.close(1000)).toBe(first);
  });
});
