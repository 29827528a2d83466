/**
 * "Exactly once, never hangs": a call that found its tool always resolves to one result, with one
 * afterToolCall and one event, and releases its place in the invoker's drain — whatever the
 * application's mapper does, and whether or not a handler honours its signal.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  ToolError,
  type AfterToolCallEvent,
  type ErrorMapper,
  type ToolCallEvent,
  type ToolErrorEvent,
  type ToolInvoker,
} from '../../lib/core/index.js';
import type { ToolHandler } from '../../lib/core/runtime-tool.js';
import { deferred } from '../fixtures/timing.js';
import { makeLogger } from './support.js';

function setup(
  handler: ToolHandler,
  options: {
    mapError?: ErrorMapper | ErrorMapper[];
    timeoutMs?: number;
    before?: () => unknown;
  } = {},
) {
  const after: AfterToolCallEvent[] = [];
  const errors: ToolErrorEvent[] = [];
  const events: ToolCallEvent[] = [];
  const logger = makeLogger();
  const tool = defineRuntimeTool({
    description: 'Work',
    identity: { serviceName: 'jobs', action: 'work', method: 'POST' },
    input: z.object({}),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    handler,
  });
  const invoker = createToolInvoker([tool], {
    logger,
    mapError: options.mapError,
    hooks: {
      beforeToolCall: options.before,
      onToolError: (hook) => void errors.push(hook),
      afterToolCall: (hook) => void after.push(hook),
    },
    onCallFinished: (event) => void events.push(event),
  });
  return { invoker, after, errors, events, logger };
}

/** Whether `close()` finished before the next turn of the event loop: no call was left in the drain. */
async function closesAtOnce(invoker: ToolInvoker): Promise<boolean> {
  const closed = invoker.close({ graceMs: 60_000 }).then(() => true);
  const nextTurn = new Promise<false>((resolve) => setImmediate(() => resolve(false)));
  return Promise.race([closed, nextTurn]);
}

const INTERNAL = {
  ok: false,
  error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
};

describe('a mapError that fails', () => {
  const boom = new Error('db at 10.0.0.4 failed');
  const mapperFailure = new Error('mapper bug');
  const throwingMapper: ErrorMapper = () => {
    throw mapperFailure;
  };

  it('is reported like a throwing hook; the call resolves as if there were no mapper', async () => {
    const h = setup(
      () => {
        throw boom;
      },
      { mapError: throwingMapper },
    );
    await expect(h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' })).resolves.toEqual(
      INTERNAL,
    );
    // The mapper's failure, then the call's own: an internal error, logged as unexpected.
    expect(h.logger.error.mock.calls).toEqual([
      ['[toolwright] mapError failed for "jobs_work":', mapperFailure],
      [expect.stringMatching(/^\[toolwright\] Tool "jobs_work" failed unexpectedly \(call /), boom],
    ]);
    expect(h.errors.map((hook) => hook.error)).toEqual([boom]);
    expect(h.after).toHaveLength(1);
    expect(h.after[0]).toMatchObject({ result: INTERNAL, error: boom });
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({ ok: false, errorCode: 'INTERNAL_SERVER_ERROR' });
    expect(await closesAtOnce(h.invoker)).toBe(true);
  });

  it('keeps a thrown ToolError as it is: the mapper is not consulted for one', async () => {
    const mapError = jest.fn(throwingMapper);
    const h = setup(
      () => {
        throw new ToolError('CONFLICT', { message: 'Already closed' });
      },
      { mapError },
    );
    const result = await h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'Already closed', retryable: false },
    });
    expect(mapError).not.toHaveBeenCalled();
    expect(h.after).toHaveLength(1);
  });

  it('refuses a beforeToolCall throw as an internal error when the mapper throws on it', async () => {
    const h = setup(() => ({}), {
      mapError: throwingMapper,
      before: () => {
        throw boom;
      },
    });
    await expect(h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' })).resolves.toEqual(
      INTERNAL,
    );
    expect(h.logger.error.mock.calls.map(([message]) => message)).toEqual([
      '[toolwright] mapError failed for "jobs_work":',
      expect.stringMatching(
        /^\[toolwright\] Tool "jobs_work" failed unexpectedly in a beforeToolCall hook \(call /,
      ),
    ]);
    expect(h.after).toHaveLength(1);
    expect(h.events).toHaveLength(1);
    expect(await closesAtOnce(h.invoker)).toBe(true);
  });

  it('ignores a mapper answer that is not a ToolError, and says so', async () => {
    const h = setup(
      () => {
        throw boom;
      },
      { mapError: (() => 'not an error') as unknown as ErrorMapper },
    );
    await expect(h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' })).resolves.toEqual(
      INTERNAL,
    );
    expect(h.logger.error).toHaveBeenCalledWith(
      '[toolwright] mapError failed for "jobs_work":',
      new TypeError('mapError returned a non-ToolError value'),
    );
    expect(h.after).toHaveLength(1);
  });

  it('passes over a failing mapper to the next one in the list', async () => {
    const h = setup(
      () => {
        throw boom;
      },
      {
        mapError: [
          throwingMapper,
          (error) => (error === boom ? new ToolError('BAD_GATEWAY', { status: 502 }) : undefined),
        ],
      },
    );
    await expect(h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' })).resolves.toEqual({
      ok: false,
      error: { code: 'BAD_GATEWAY', message: 'BAD_GATEWAY', retryable: true },
    });
    expect(h.logger.error).toHaveBeenCalledTimes(1);
    expect(h.after).toHaveLength(1);
  });

  it('still answers an internal error when the thrown value throws when looked at', async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    const h = setup(() => {
      throw hostile;
    });
    await expect(h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' })).resolves.toEqual(
      INTERNAL,
    );
    expect(h.after).toHaveLength(1);
    expect(h.events).toHaveLength(1);
    expect(await closesAtOnce(h.invoker)).toBe(true);
  });
});

describe('a handler that ignores its signal', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** A handler that never looks at its signal: it settles only when the test says so. */
  function stubborn() {
    const started = deferred();
    const outcome = deferred<unknown>();
    let signal: AbortSignal | undefined;
    const handler: ToolHandler = (call) => {
      signal = call.signal;
      started.resolve();
      return outcome.promise;
    };
    return { handler, started, outcome, signal: () => signal };
  }

  it('is answered SERVICE_UNAVAILABLE when close() aborts it after the grace period', async () => {
    const s = stubborn();
    const h = setup(s.handler);
    let result: unknown;
    const call = h.invoker
      .invoke('jobs_work', {}, { transport: 'AGENT' })
      .then((value) => (result = value));
    await s.started.promise;
    let closed = false;
    const closing = h.invoker.close({ graceMs: 1_000 }).then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(999);
    expect({ result, closed, aborted: s.signal()?.aborted }).toEqual({
      result: undefined,
      closed: false,
      aborted: false,
    });
    await jest.advanceTimersByTimeAsync(1);
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The application is shutting down; retry the call.',
        retryable: true,
      },
    });
    expect(s.signal()?.aborted).toBe(true);
    expect((s.signal()?.reason as ToolError).code).toBe('SERVICE_UNAVAILABLE');
    await closing;
    await call;
    expect(closed).toBe(true);
    expect(h.after).toHaveLength(1);
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({ ok: false, errorCode: 'SERVICE_UNAVAILABLE' });
    expect(h.errors).toHaveLength(0);

    // The handler's late throw reaches onToolError; nothing else runs again.
    const late = new Error('gave up late');
    s.outcome.reject(late);
    await jest.advanceTimersByTimeAsync(0);
    expect(h.errors.map((hook) => hook.error)).toEqual([late]);
    expect(h.after).toHaveLength(1);
    expect(h.events).toHaveLength(1);
  });

  it('is answered REQUEST_ABORTED at once when the caller aborts; a late result is dropped', async () => {
    const s = stubborn();
    const h = setup(s.handler);
    const controller = new AbortController();
    const call = h.invoker.invoke(
      'jobs_work',
      {},
      { transport: 'AGENT', signal: controller.signal },
    );
    await s.started.promise;
    controller.abort();
    expect(await call).toEqual({
      ok: false,
      error: {
        code: 'REQUEST_ABORTED',
        message: 'The call to "jobs_work" was cancelled.',
        retryable: false,
      },
    });
    expect(s.signal()?.aborted).toBe(true);
    s.outcome.resolve({ done: true });
    await jest.advanceTimersByTimeAsync(0);
    expect(h.after).toHaveLength(1);
    expect(h.events).toHaveLength(1);
    expect(h.errors).toHaveLength(0);
    expect(await closesAtOnce(h.invoker)).toBe(true);
  });

  it('is answered REQUEST_TIMEOUT when its timeout passes, and released from the drain', async () => {
    const s = stubborn();
    const h = setup(s.handler, { timeoutMs: 50 });
    const call = h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' });
    await s.started.promise;
    await jest.advanceTimersByTimeAsync(50);
    expect(await call).toMatchObject({ ok: false, error: { code: 'REQUEST_TIMEOUT' } });
    expect(h.after).toHaveLength(1);
    expect(await closesAtOnce(h.invoker)).toBe(true);
  });

  it('is cut short by close() even when it was started with neither timeout nor signal', async () => {
    const s = stubborn();
    const h = setup(s.handler);
    const calls = [1, 2, 3].map(() => h.invoker.invoke('jobs_work', {}, { transport: 'AGENT' }));
    await s.started.promise;
    const closing = h.invoker.close({ graceMs: 0 });
    await jest.advanceTimersByTimeAsync(0);
    const results = await Promise.all(calls);
    await closing;
    expect(results.map((result) => !result.ok && result.error.code)).toEqual([
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
    ]);
    expect(h.after).toHaveLength(3);
    expect(h.events).toHaveLength(3);
  });
});
