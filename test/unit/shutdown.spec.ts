import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';

const slow = (settle: Promise<void>, seen: { signal?: AbortSignal }) =>
  defineRuntimeTool({
    name: 'slow',
    description: 'Waits until told to finish',
    identity: { serviceName: 'demo', action: 'slow', method: 'GET' },
    input: z.object({}),
    handler: async ({ signal }) => {
      seen.signal = signal;
      await settle;
      return 'done';
    },
  });

describe('invoker.close', () => {
  it('refuses new calls, lets running ones finish within the grace period', async () => {
    let finish!: () => void;
    const seen: { signal?: AbortSignal } = {};
    const invoker = createToolInvoker([slow(new Promise((resolve) => (finish = resolve)), seen)]);

    const running = invoker.invoke('slow', {}, { transport: 'AGENT' });
    await new Promise((resolve) => setImmediate(resolve));
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
    const seen: { signal?: AbortSignal } = {};
    const invoker = createToolInvoker([slow(new Promise(() => {}), seen)]);
    void invoker.invoke('slow', {}, { transport: 'AGENT' });
    await new Promise((resolve) => setImmediate(resolve));

    await invoker.close({ graceMs: 50 });
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // A second close joins the first.
    await expect(invoker.close({ graceMs: 10_000 })).resolves.toBeUndefined();
  });
});
