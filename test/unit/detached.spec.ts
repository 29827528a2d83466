/**
 * What runs after its request may be gone runs through `attempt`: a throw or a rejection goes to
 * the reporter and nowhere else, a reporter that throws is ignored, and a promise made now and
 * awaited later is never reported unhandled in between. (Anything that escaped would fail this
 * file: the suite's environment fails a file on an uncaught exception or unhandled rejection.)
 */
import { describe, expect, it } from '@jest/globals';
import { attempt, awaitedLater, detached, detachedListener } from '../../lib/core/detached.js';

/** A few turns of the event loop: long enough for a rejection to be reported unhandled. */
async function turns(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('attempt', () => {
  it('reports a throw, answers nothing to await', () => {
    const reported: unknown[] = [];
    const boom = new Error('boom');
    expect(
      attempt(
        () => {
          throw boom;
        },
        (error) => reported.push(error),
      ),
    ).toBeUndefined();
    expect(reported).toEqual([boom]);
  });

  it('reports a rejection through a promise that never rejects', async () => {
    const reported: unknown[] = [];
    const pending = attempt(
      () => Promise.reject(new Error('later')),
      (error) => reported.push(error),
    );
    await expect(pending).resolves.toBeUndefined();
    expect(reported).toEqual([new Error('later')]);
  });

  it('ignores a reporter that throws, synchronously or later', async () => {
    const failing = () => {
      throw new Error('the reporter too');
    };
    expect(() =>
      attempt(() => {
        throw new Error('boom');
      }, failing),
    ).not.toThrow();
    await expect(
      attempt(() => Promise.reject(new Error('later')), failing),
    ).resolves.toBeUndefined();
    await turns();
  });

  it('passes a value through untouched, and calls no reporter', async () => {
    const reported: unknown[] = [];
    expect(
      attempt(
        () => 42,
        (error) => reported.push(error),
      ),
    ).toBeUndefined();
    await expect(
      attempt(
        async () => 42,
        (error) => reported.push(error),
      ),
    ).resolves.toBeUndefined();
    expect(reported).toEqual([]);
  });
});

describe('detached and detachedListener', () => {
  it('an abort listener that throws after its request is gone reaches only the reporter', async () => {
    const reported: unknown[] = [];
    const controller = new AbortController();
    controller.signal.addEventListener(
      'abort',
      detachedListener(
        () => {
          // What a write to a stream that closed does.
          throw new TypeError("Cannot read properties of undefined (reading 'send')");
        },
        (error) => reported.push(error),
      ),
    );
    controller.abort();
    await turns();
    expect(reported).toEqual([expect.objectContaining({ name: 'TypeError' })]);
  });

  it('a fired-and-forgotten callback that rejects is reported, not unhandled', async () => {
    const reported: unknown[] = [];
    detached(
      () => Promise.reject(new Error('store away')),
      (error) => reported.push(error),
    );
    await turns();
    expect(reported).toEqual([new Error('store away')]);
  });
});

describe('awaitedLater', () => {
  it('a rejection made before its awaiter arrives is not reported unhandled, and still reaches it', async () => {
    const held = awaitedLater(Promise.reject(new Error('aborted already')));
    // What a task's asker does: a store write first, then the wait.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(held).rejects.toThrow('aborted already');
  });
});
