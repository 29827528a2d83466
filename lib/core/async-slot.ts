import { AsyncLocalStorage } from 'node:async_hooks';

// Every slot lives in this one storage. Where AsyncLocalStorage runs on async hooks (Node 22),
// each enabled storage adds its own work to every promise and async resource the process
// creates, whether it holds a value or not: one storage per value (the call frame, the HTTP
// request) made every request pay it twice.
const storage = new AsyncLocalStorage<unknown[]>();
let slots = 0;

/**
 * A value kept per async flow: what `run` sets is seen by everything `fn` awaits or schedules,
 * parallel flows keep their own, and the values of the other slots are kept as they were.
 */
export class AsyncSlot<T> {
  private readonly index = slots++;

  /** The value set by the innermost `run` of this async flow, if any. */
  get(): T | undefined {
    return storage.getStore()?.[this.index] as T | undefined;
  }

  /** Runs `fn(arg)` with `value` in this slot. */
  run<R>(value: T, fn: () => R): R;
  run<A, R>(value: T, fn: (arg: A) => R, arg: A): R;
  run<A, R>(value: T, fn: (arg?: A) => R, arg?: A): R {
    const store = storage.getStore()?.slice() ?? [];
    store[this.index] = value;
    return storage.run(store, fn, arg);
  }
}
