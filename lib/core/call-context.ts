import type { ToolAsk } from './asking.js';
import { AsyncSlot } from './async-slot.js';
import type { CallTelemetry } from './telemetry.js';
import type { ToolCallInfo } from './types.js';

/** What a running call keeps in its own async context. */
export interface CallFrame {
  readonly call: ToolCallInfo;
  /** The handler's signal: calls made inside this one are cancelled with it. */
  readonly signal: AbortSignal;
  /** Its span, which the spans of calls made inside it are children of. */
  readonly telemetry?: CallTelemetry;
  /** How its caller answers questions: calls made inside it ask through it too. */
  readonly ask?: ToolAsk;
}

const frames = new AsyncSlot<CallFrame>();

/** The innermost running call's frame, if any. */
export function currentFrame(): CallFrame | undefined {
  return frames.get();
}

/** Runs `fn(arg)` as the given call: everything it awaits sees this frame, parallel calls their own. */
export function runInFrame<A, T>(frame: CallFrame, fn: (arg: A) => T, arg: A): T {
  return frames.run(frame, fn, arg);
}

/**
 * The innermost tool call running in this async flow — in a handler, a hook, a guard, or any
 * service they call — or `undefined` outside any call.
 *
 * @example
 * const call = currentToolCall();
 * if (call) logger.log(`inside ${call.name} (${call.source}), depth ${call.depth}`);
 */
export function currentToolCall(): ToolCallInfo | undefined {
  return frames.get()?.call;
}
