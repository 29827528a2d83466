import { isThenable } from './maybe-async.js';

/** Where a detached callback's failure goes: a logger's line, a counter. */
export type DetachedFailure = (error: unknown) => void;

/**
 * Runs `callback` where nobody awaits it, or where its request may be gone by the time it runs
 * (an abort listener, a timer, a bus message, a store write, a send on a stream that closed):
 * a throw or a rejection goes to `failed`, never further, so it cannot end the process. Returns
 * a promise only when `callback` returned one; that promise never rejects.
 *
 * `failed` is guarded too: a reporter that throws is ignored.
 */
export function attempt(callback: () => unknown, failed: DetachedFailure): void | Promise<void> {
  let value: unknown;
  try {
    value = callback();
  } catch (error) {
    return reportSafely(failed, error);
  }
  if (!isThenable(value)) return;
  return Promise.resolve(value).then(
    () => undefined,
    (error: unknown) => reportSafely(failed, error),
  );
}

/** {@link attempt}, with nothing to await: for a callback fired and forgotten. */
export function detached(callback: () => unknown, failed: DetachedFailure): void {
  void attempt(callback, failed);
}

/**
 * `listener` as an event, signal, timer or bus listener may call it: through {@link attempt},
 * so that whatever it does after its request is gone stays here.
 */
export function detachedListener<A extends unknown[]>(
  listener: (...args: A) => unknown,
  failed: DetachedFailure,
): (...args: A) => void {
  return (...args) => void attempt(() => listener(...args), failed);
}

/**
 * Marks a promise that is made now and awaited later (or never, when its awaiter goes first)
 * as handled: its rejection still reaches whoever awaits it, and is never reported unhandled
 * in between. Returns the same promise.
 */
export function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(ignore);
  return promise;
}

/** A reporter for failures that have nowhere to go and need none (a best-effort notice). */
export function ignore(): void {}

function reportSafely(failed: DetachedFailure, error: unknown): void {
  try {
    failed(error);
  } catch {
    // The reporter's own failure has nowhere left to go.
  }
}
