/**
 * The suite's test environment: Node's, with a guard on the worker process. An
 * `uncaughtException` or an `unhandledRejection` while a test file runs fails that file, with
 * the error's stack: the test it came during (one that came between two tests fails the next),
 * or else the file itself. A rejection handled only later counts too: without a listener, Node ends the
 * process at the first `unhandledRejection`, whatever happens to the promise afterwards.
 *
 * Why an environment: a test file's `process` is a copy (`process.on` there never hears the
 * worker's events), and an environment runs outside the test's context, on the real one.
 * Jest's runner listens on the real process too, but only from its `setup` to its `teardown`,
 * and it forgets a rejection handled before the test ends; the guard takes both events over
 * from it for the whole file.
 */
import { inspect, types } from 'node:util';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';

/** The events the guard hears in place of Jest's runner. */
const GUARDED = ['uncaughtException', 'unhandledRejection'] as const;

export default class ProcessGuardEnvironment extends TestEnvironment {
  /** What the process reported since the last test ended, not yet failed on anything. */
  private failures: Error[] = [];
  private readonly onUncaught = (error: unknown) =>
    void this.failures.push(failure('uncaughtException', error));
  private readonly onUnhandled = (reason: unknown) =>
    void this.failures.push(failure('unhandledRejection', reason));

  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    switch (event.name) {
      case 'setup':
        // The runner has just replaced every listener of the process by its own: the guard's
        // replace those (the runner puts the earlier ones back at its teardown).
        for (const name of GUARDED) process.removeAllListeners(name);
        process.on('uncaughtException', this.onUncaught);
        process.on('unhandledRejection', this.onUnhandled);
        break;
      case 'test_done':
        event.test.errors.push(...this.take());
        break;
      case 'run_finish':
        // What the last hooks left behind surfaces after one more turn of the event loop.
        await nextTurn();
        state.unhandledErrors.push(...this.take());
        break;
    }
  }

  /** Whatever came after the last test and hook fails the file here. */
  override async teardown(): Promise<void> {
    await nextTurn();
    process.off('uncaughtException', this.onUncaught);
    process.off('unhandledRejection', this.onUnhandled);
    await super.teardown();
    const late = this.take();
    if (late.length === 1) throw late[0];
    if (late.length > 1) {
      throw new AggregateError(late, late.map((error) => error.stack).join('\n\n'));
    }
  }

  private take(): Error[] {
    const taken = this.failures;
    this.failures = [];
    return taken;
  }
}

/** An error that says which process event reported `reason`, with `reason`'s own stack. */
function failure(event: (typeof GUARDED)[number], reason: unknown): Error {
  // An error made in a test's context is of that context's `Error`: `instanceof` would miss it.
  if (!types.isNativeError(reason)) return new Error(`${event}: ${inspect(reason)}`);
  const error = new Error(`${event}: ${reason.message}`);
  error.stack = `${event}: ${reason.stack ?? reason.message}`;
  return error;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
