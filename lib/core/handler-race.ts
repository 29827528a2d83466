import { isObservable, type Observable } from 'rxjs';
import { ToolError } from './errors.js';
import { isThenable } from './maybe-async.js';
import type { ToolSpec } from './runtime-tool.js';

/** A failure the pipeline defines itself (validation, refusal, timeout): not reported to `onToolError`. */
export class Refusal {
  constructor(readonly error: ToolError) {}
}

/**
 * What the race needs of a call: a way to be told when the call is aborted (by the caller, the
 * timeout or a shutdown), and where a handler's throw that comes after the answer goes.
 */
export interface RacingCall {
  /** The handler's signal. */
  readonly signal: AbortSignal;
  /** Why the call was aborted, once it has been. */
  readonly abortReason?: ToolError;
  /** Aborts the call: the handler's signal fires and the race stops waiting. */
  abort(reason: ToolError): void;
  /** Set while the race waits: the call's `abort` calls it. */
  stopWaiting?: (reason: ToolError) => void;
}

/**
 * The handler's outcome, unless the call is aborted first — the tool's timeout passes, the caller
 * cancels, or the invoker shuts down. Whatever aborts the handler's signal also ends the wait at
 * once with that reason (a `Refusal`); the handler's late result is dropped, and its late throw
 * goes to `late.lateThrow`.
 */
export function raceHandler(
  produced: unknown,
  spec: ToolSpec,
  call: RacingCall,
  callerSignal: AbortSignal | undefined,
  late: { lateThrow(error: unknown): void },
): unknown {
  const pending = isObservable(produced) ? lastValue(produced, call.signal) : produced;
  if (!isThenable(pending)) {
    if (callerSignal?.aborted) throw new Refusal(cancelled(spec));
    return pending;
  }
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    const done = () => {
      answered = true;
      call.stopWaiting = undefined;
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    };
    const stop = (reason: ToolError) => {
      done();
      reject(new Refusal(reason));
    };
    call.stopWaiting = stop;
    const onCallerAbort = () => call.abort(cancelled(spec));
    // The deadline is also checked when the handler settles: with the event loop lagging, the
    // handler's own timers may run before the timeout's, and a late outcome is still late.
    let deadline = Infinity;
    const { timeoutMs } = spec;
    if (timeoutMs !== undefined) {
      deadline = performance.now() + timeoutMs;
      timer = setTimeout(() => call.abort(timedOut(spec, timeoutMs)), timeoutMs);
    }
    // Aborted while the handler started (it aborted the caller's signal itself, or a shutdown
    // came in between): stop at once.
    if (call.abortReason) stop(call.abortReason);
    else if (callerSignal?.aborted) onCallerAbort();
    else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    Promise.resolve(pending).then(
      (value) => {
        if (answered) return;
        if (performance.now() >= deadline) return call.abort(timedOut(spec, timeoutMs!));
        done();
        resolve(value);
      },
      (error: unknown) => {
        if (answered) return late.lateThrow(error);
        if (performance.now() >= deadline) {
          call.abort(timedOut(spec, timeoutMs!));
          return late.lateThrow(error);
        }
        done();
        reject(error);
      },
    );
  });
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
