import { isObservable, type Observable } from 'rxjs';
import { ToolError } from './errors.js';
import { Interruptible, isThenable } from './maybe-async.js';
import type { ToolSpec } from './runtime-tool.js';

/** A failure the pipeline defines itself (validation, refusal, timeout): not reported to `onToolError`. */
export class Refusal {
  constructor(readonly error: ToolError) {}
}

/** What the wait on a handler needs of its call. */
export interface WaitingCall {
  /** The handler's signal. */
  readonly signal: AbortSignal;
  /** Why the call was aborted, once it has been. */
  readonly abortReason?: ToolError;
  /** Aborts the call: the handler's signal fires and the wait on the handler ends. */
  abort(reason: ToolError): void;
  /** Set while the runner waits on the handler: the call's `abort` stops it. */
  waiter?: { stop(reason: ToolError): void };
}

/**
 * What cancels a call from outside, as the runner uses it: an `AbortSignal`, or a lighter source
 * a surface makes per request (the MCP endpoint's, which listens to its response only once
 * something listens to it).
 */
export interface CallerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Where a value the handler throws after its call was answered goes (`onToolError`). */
export interface LateThrows {
  lateThrow(error: unknown): void;
}

/**
 * What the runner waits on for a handler: its outcome, unless the call is aborted first — the
 * tool's timeout passes, the caller cancels, or the invoker shuts down. Whatever aborts the
 * handler's signal ends the wait at once with that reason (a `Refusal`); the handler's late
 * result is dropped and its late throw goes to `lateThrow`. A handler that returned a plain
 * value is not waited on at all.
 */
export function handlerOutcome(
  produced: unknown,
  spec: ToolSpec,
  call: WaitingCall,
  callerSignal: CallerSignal | undefined,
  lateThrows: LateThrows,
): unknown {
  // A promise is checked for first: it is what an async handler returns.
  const pending = isThenable(produced)
    ? produced
    : isObservable(produced)
      ? lastValue(produced, call.signal)
      : undefined;
  if (pending) return new HandlerWait(pending, spec, call, callerSignal, lateThrows);
  if (callerSignal?.aborted) throw new Refusal(cancelled(spec));
  return produced;
}

class HandlerWait extends Interruptible {
  private timer?: NodeJS.Timeout;
  private deadline = Infinity;
  private onCallerAbort?: () => void;

  constructor(
    pending: PromiseLike<unknown>,
    private readonly spec: ToolSpec,
    private readonly call: WaitingCall,
    private readonly callerSignal: CallerSignal | undefined,
    private readonly lateThrows: LateThrows,
  ) {
    super(pending);
  }

  /** The call was aborted (by its timeout, its caller or a shutdown): the wait ends now. */
  stop(reason: ToolError): void {
    this.release();
    this.interrupt(new Refusal(reason));
  }

  protected begin(): void {
    const { call, spec, callerSignal } = this;
    call.waiter = this;
    // Aborted while the handler started (it aborted the caller's signal itself, or a shutdown
    // came in between): stop at once.
    if (call.abortReason) return this.stop(call.abortReason);
    const { timeoutMs } = spec;
    if (timeoutMs !== undefined) {
      // The deadline is also checked when the handler settles (see `end`).
      this.deadline = performance.now() + timeoutMs;
      this.timer = setTimeout(() => call.abort(timedOut(spec, timeoutMs)), timeoutMs);
    }
    if (callerSignal) {
      if (callerSignal.aborted) return call.abort(cancelled(spec));
      this.onCallerAbort = () => call.abort(cancelled(spec));
      callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  protected end(): unknown {
    this.release();
    // With the event loop lagging, the handler's own timers may run before the timeout's: an
    // outcome that comes after the deadline is still late.
    if (this.deadline !== Infinity && performance.now() >= this.deadline) {
      const reason = timedOut(this.spec, this.spec.timeoutMs!);
      this.call.abort(reason);
      return new Refusal(reason);
    }
    return undefined;
  }

  protected late(ok: boolean, value: unknown): void {
    if (!ok) this.lateThrows.lateThrow(value);
  }

  private release(): void {
    this.call.waiter = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onCallerAbort) this.callerSignal!.removeEventListener('abort', this.onCallerAbort);
  }
}

function lastValue<T>(source: Observable<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    let last: T | undefined;
    const subscription = source.subscribe({
      next: (value) => (last = value),
      error: reject,
      complete: () => resolve(last),
    });
    signal.addEventListener('abort', () => subscription.unsubscribe(), { once: true });
  });
}

function timedOut(spec: ToolSpec, ms: number): ToolError {
  return new ToolError('REQUEST_TIMEOUT', {
    message: `Tool "${spec.name}" did not finish within ${ms} ms.`,
  });
}

/** The failure of a call its caller cancelled. */
export function cancelled(spec: ToolSpec): ToolError {
  return new ToolError('REQUEST_ABORTED', { message: `The call to "${spec.name}" was cancelled.` });
}
