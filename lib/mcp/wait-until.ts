import { detachedListener, type DetachedFailure } from '../core/detached.js';

/**
 * Waits until `subscribe`'s `settle` is called, or rejects with the signal's reason when it
 * aborts first (at once when it has already). Every way out runs the unsubscribe `subscribe`
 * returned and drops the abort listener. `settle` and the abort listener may run after whoever
 * waited is gone (a timer, a bus message, an abort): they run through `detachedListener`, their
 * failures to `failed`.
 */
export function waitUntil<T>(
  signal: AbortSignal,
  subscribe: (settle: (value: T) => void) => () => void,
  failed: DetachedFailure,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const end = () => {
      unsubscribe();
      signal.removeEventListener('abort', aborted);
    };
    const aborted = detachedListener(() => {
      end();
      reject(signal.reason);
    }, failed);
    const unsubscribe = subscribe(
      detachedListener((value: T) => {
        end();
        resolve(value);
      }, failed),
    );
    signal.addEventListener('abort', aborted, { once: true });
  });
}
