/**
 * Drives a generator that yields values or promises, like an async function whose `await`s
 * are `yield`s — except that it continues synchronously while nothing it yields is pending.
 * A call that never waits on anything then costs no promise at all. A yielded
 * {@link Interruptible} is waited on until its promise settles or it is interrupted, whichever
 * comes first.
 */
export function drive<T>(steps: Generator<unknown, T, unknown>): T | Promise<T> {
  return resume(steps, steps.next());
}

/**
 * A wait that may end before its promise settles. `drive` waits on `pending`; `begin` runs as the
 * wait starts, and the subclass may call `interrupt(error)` to end the wait early (the error is
 * thrown into the steps). When the promise settles first, `end` runs and may return an error to
 * throw instead of the outcome; a settlement after the wait ended goes to `late`.
 */
export abstract class Interruptible {
  private steps?: Generator<unknown, unknown, unknown>;
  private resolve?: (value: unknown) => void;
  private reject?: (error: unknown) => void;
  private waiting = false;

  constructor(readonly pending: PromiseLike<unknown>) {}

  /** The wait starts. */
  protected abstract begin(): void;

  /** The promise settled while the wait was on: an error to throw instead, or `undefined`. */
  protected abstract end(): unknown;

  /** The promise settled after the wait had ended. */
  protected abstract late(ok: boolean, value: unknown): void;

  /** Ends the wait now, throwing `error` into the steps; nothing if the wait is over. */
  protected interrupt(error: unknown): void {
    if (!this.waiting) return;
    this.waiting = false;
    this.continue(false, error);
  }

  /** Called by `drive`: the promise of the steps' outcome. */
  wait<T>(steps: Generator<unknown, T, unknown>): Promise<T> {
    this.steps = steps;
    this.waiting = true;
    const outcome = new Promise<T>((resolve, reject) => {
      this.resolve = resolve as (value: unknown) => void;
      this.reject = reject;
    });
    this.begin();
    // Subscribed even when `begin` already ended the wait: a late rejection is still handled.
    this.pending.then(
      (value) => this.settled(true, value),
      (error: unknown) => this.settled(false, error),
    );
    return outcome;
  }

  private settled(ok: boolean, value: unknown): void {
    if (!this.waiting) return this.late(ok, value);
    this.waiting = false;
    const instead = this.end();
    if (instead === undefined) return this.continue(ok, value);
    this.continue(false, instead);
    if (!ok) this.late(false, value);
  }

  private continue(ok: boolean, value: unknown): void {
    const steps = this.steps!;
    try {
      this.resolve!(resume(steps, ok ? steps.next(value) : steps.throw(value)));
    } catch (error) {
      this.reject!(error);
    }
  }
}

function resume<T>(
  steps: Generator<unknown, T, unknown>,
  step: IteratorResult<unknown, T>,
): T | Promise<T> {
  while (!step.done) {
    const value = step.value;
    if (value instanceof Interruptible) return value.wait(steps);
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
