/**
 * Drives a generator that yields values or promises, like an async function whose `await`s
 * are `yield`s — except that it continues synchronously while nothing it yields is pending.
 * A call that never waits on anything then costs no promise at all.
 *
 * @example
 * function* double(x: number | Promise<number>) { return (yield x) as number * 2; }
 * drive(double(2)); // 4, synchronously
 * await drive(double(Promise.resolve(2))); // 4
 */
export function drive<T>(steps: Generator<unknown, T, unknown>): T | Promise<T> {
  return resume(steps, steps.next());
}

function resume<T>(
  steps: Generator<unknown, T, unknown>,
  step: IteratorResult<unknown, T>,
): T | Promise<T> {
  while (!step.done) {
    const value = step.value;
    if (!isThenable(value)) {
      step = steps.next(value);
      continue;
    }
    return Promise.resolve(value).then(
      (resolved) => resume(steps, steps.next(resolved)),
      (error: unknown) => resume(steps, steps.throw(error)),
    );
  }
  return step.value;
}

/** Whether a value is a promise or any other thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as PromiseLike<unknown>).then === 'function')
  );
}
