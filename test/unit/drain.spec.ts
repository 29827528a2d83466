import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { Drain } from '../../lib/core/drain.js';
import { deferred, Latches, type Deferred } from '../fixtures/timing.js';

/** What a `slow` call saw: its signal, and a deferred resolved when its handler started. */
interface Seen {
  signal?: AbortSignal;
  started: Deferred;
}

const slow = (settle: Promise<void>, seen: Seen) =>
  defineRuntimeTool({
    name: 'slow',
    description: 'Waits until told to finish',
    identity: { serviceName: 'demo', action: 'slow', method: 'GET' },
    input: z.object({}),
    handler: async ({ signal }) => {
      seen.signal = signal;
      seen.started.resolve();
      await settle;
      return 'done';
    },
  });

describe('invoker.close', () => {
  it('refuses new calls, lets running ones finish within the grace period', async () => {
    let finish!: () => void;
    const seen: Seen = { started: deferred() };
    const invoker = createToolInvoker([slow(new Promise((resolve) => (finish = resolve)), seen)]);

    const running = invoker.invoke('slow', {}, { transport: 'AGENT' });
    await seen.started.promise;
    const closed = invoker.close({ graceMs: 5_000 });

    expect(await invoker.invoke('slow', {}, { transport: 'AGENT' })).toEqual({
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The application is shutting down; retry the call.',
        retryable: true,
      },
    });
    finish();
    expect(await running).toEqual({ ok: true, data: 'done' });
    await closed;
    expect(seen.signal?.aborted).toBe(false);
  });

  it('aborts the signals of calls still running when the grace period ends', async () => {
    const seen: Seen = { started: deferred() };
    const invoker = createToolInvoker([slow(new Promise(() => {}), seen)]);
    void invoker.invoke('slow', {}, { transport: 'AGENT' });
    await seen.started.promise;

    await invoker.close({ graceMs: 50 });
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // A second close joins the first.
    await expect(invoker.close({ graceMs: 10_000 })).resolves.toBeUndefined();
  });

  describe('with several calls in flight, ending in any order', () => {
    /** A tool whose calls each wait for their own release, by key. */
    function keyed() {
      const releases = new Map<string, () => void>();
      const signals = new Map<string, AbortSignal>();
      const started = new Latches();
      const tool = defineRuntimeTool({
        name: 'keyed',
        description: 'Waits until its key is released',
        identity: { serviceName: 'demo', action: 'keyed', method: 'GET' },
        input: z.object({ key: z.string() }),
        handler: async ({ input, signal }) => {
          signals.set(input.key, signal);
          const released = new Promise<void>((resolve) => releases.set(input.key, resolve));
          started.get(input.key).resolve();
          await released;
          return input.key;
        },
      });
      /** Resolves once the handler of every key has started. */
      const running = (keys: string[]) => Promise.all(keys.map((key) => started.get(key).promise));
      return { invoker: createToolInvoker([tool]), releases, signals, running };
    }
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    it('drains when the last of them ends, whatever the order', async () => {
      const { invoker, releases, signals, running } = keyed();
      const calls = ['a', 'b', 'c', 'd'].map((key) =>
        invoker.invoke('keyed', { key }, { transport: 'AGENT' }),
      );
      await running(['a', 'b', 'c', 'd']);
      releases.get('b')!(); // one in the middle
      releases.get('d')!(); // the newest
      let drained = false;
      const closed = invoker.close({ graceMs: 10_000 }).then(() => (drained = true));
      releases.get('a')!(); // the oldest
      await tick();
      expect(drained).toBe(false);
      releases.get('c')!();
      await closed;
      expect(await Promise.all(calls)).toEqual(
        ['a', 'b', 'c', 'd'].map((key) => ({ ok: true, data: key })),
      );
      expect([...signals.values()].map((signal) => signal.aborted)).toEqual([
        false,
        false,
        false,
        false,
      ]);
    });

    it('aborts exactly the calls still running when the grace period ends', async () => {
      const { invoker, releases, signals, running } = keyed();
      const calls = new Map(
        ['a', 'b', 'c', 'd', 'e'].map((key) => [
          key,
          invoker.invoke('keyed', { key }, { transport: 'AGENT' }),
        ]),
      );
      await running([...calls.keys()]);
      releases.get('b')!();
      releases.get('e')!();
      await Promise.all([calls.get('b'), calls.get('e')]);
      await invoker.close({ graceMs: 30 });
      const aborted = [...signals].filter(([, signal]) => signal.aborted).map(([key]) => key);
      expect(aborted.sort()).toEqual(['a', 'c', 'd']);
    });
  });
});

describe('Drain with work that has nothing to abort', () => {
  it('waits for it to leave, and ends the grace period without aborting anything', async () => {
    const shutdown = new Drain();
    const aborted: string[] = [];
    const quiet = shutdown.enter();
    const loud = shutdown.enter({ abort: () => aborted.push('loud') });
    let drained = false;
    const closed = shutdown.close(5_000).then(() => (drained = true));
    shutdown.leave(quiet);
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    shutdown.leave(loud);
    await closed;
    expect(aborted).toEqual([]);

    const late = new Drain();
    late.enter();
    late.enter({ abort: () => aborted.push('late') });
    await late.close(10);
    expect(aborted).toEqual(['late']);
  });
});
