import type { ToolError } from './errors.js';
import type { ToolResult } from './result.js';
import type { ToolDescriptor } from './manifest.js';
import type { ToolCallInfo, ToolContext } from './types.js';

/** The event `beforeToolCall` receives. */
export interface BeforeToolCallEvent {
  readonly name: string;
  /** The arguments as they stand: the caller's, or an earlier hook's replacement. */
  readonly args: unknown;
  /** The raw context: resolved from the request, with the caller's explicit context over it. */
  readonly context: ToolContext;
  readonly call: ToolCallInfo;
}

/** The event `afterToolCall` receives: once per call that found its tool, whatever happened. */
export interface AfterToolCallEvent {
  readonly name: string;
  /** The arguments as the caller sent them. */
  readonly args: unknown;
  readonly context: ToolContext;
  readonly call: ToolCallInfo;
  readonly result: ToolResult;
  readonly durationMs: number;
  /** The value a guard or the handler threw, or the output's ZodError; absent otherwise. */
  readonly error?: unknown;
}

/** The event `onToolError` receives: the value as thrown, with its stack and cause. */
export interface ToolErrorEvent {
  readonly name: string;
  readonly args: unknown;
  readonly context: ToolContext;
  readonly call: ToolCallInfo;
  readonly error: unknown;
}

/**
 * Observers of every call. They run inside the call's async context, so `currentToolCall()`
 * works there. `beforeToolCall` may refuse a call by throwing, or return a plain object to
 * replace its arguments; the other two observe only — if they throw, it is logged and ignored.
 *
 * @example
 * const audit: ToolHooks = {
 *   afterToolCall: ({ name, call, result, durationMs }) =>
 *     log.info({ name, source: call.source, ok: result.ok, durationMs }),
 * };
 */
export interface ToolHooks {
  beforeToolCall?(event: BeforeToolCallEvent): unknown;
  afterToolCall?(event: AfterToolCallEvent): unknown;
  onToolError?(event: ToolErrorEvent): unknown;
}

/** What a guard's `canActivate` receives. */
export interface ToolGuardContext {
  readonly tool: ToolDescriptor;
  /** The parsed input. */
  readonly input: unknown;
  /** The parsed context. */
  readonly context: unknown;
  readonly call: ToolCallInfo;
}

/**
 * Decides whether a call may run (`false` answers `FORBIDDEN`; a thrown value is normalized),
 * and optionally whether a tool is listed at all.
 *
 * @example
 * const adminsOnly: ToolGuard = {
 *   canActivate: ({ tool, context }) =>
 *     tool.identity.scope !== 'admin' || (context as { role?: string }).role === 'admin',
 *   canList: (tool, context) => tool.identity.scope !== 'admin' || context.role === 'admin',
 * };
 */
export interface ToolGuard {
  canActivate(context: ToolGuardContext): boolean | Promise<boolean>;
  canList?(tool: ToolDescriptor, context: ToolContext): boolean | Promise<boolean>;
}

/**
 * Where the core reports what it swallows (a throwing hook) and the unexpected failures of calls.
 * Defaults to `console`; a level the logger lacks is not logged.
 */
export interface ToolLogger {
  error(message: string, error?: unknown): void;
  warn?(message: string, error?: unknown): void;
  debug?(message: string, error?: unknown): void;
}

/**
 * The level at which unexpected failures are logged (see `logUnexpectedErrors`), or `false` for
 * none.
 */
export type UnexpectedErrorLevel = 'error' | 'warn' | 'debug' | false;

/** One call's outcome, as `onCallFinished` (and Nest's `ToolEvents`) sees it. */
export interface ToolCallEvent {
  readonly name: string;
  /** A tool call, a resource read or a prompt get. */
  readonly kind: ToolCallInfo['kind'];
  /** The URI read, for a resource read. */
  readonly uri?: string;
  readonly identity: ToolDescriptor['identity'];
  readonly transport: ToolCallInfo['transport'];
  readonly source: ToolCallInfo['source'];
  readonly ok: boolean;
  readonly errorCode?: string;
  readonly durationMs: number;
  readonly callId: string;
  readonly parentId?: string;
  readonly depth: number;
}

type Hook<E> = (event: E) => unknown;

/** Hooks flattened into one list per phase, in registration order. */
export interface ComposedHooks {
  readonly before: readonly Hook<BeforeToolCallEvent>[];
  readonly after: readonly Hook<AfterToolCallEvent>[];
  readonly error: readonly Hook<ToolErrorEvent>[];
}

/** Flattens one hook object or a list of them (class instances included) into per-phase lists. */
export function composeHooks(hooks: ToolHooks | readonly ToolHooks[] | undefined): ComposedHooks {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks as ToolHooks];
  const pick = <K extends keyof ToolHooks>(key: K) =>
    Object.freeze(
      list
        .filter((hook) => typeof hook?.[key] === 'function')
        .map((hook) => (hook[key] as (o: unknown) => unknown).bind(hook)),
    );
  return Object.freeze({
    before: pick('beforeToolCall'),
    after: pick('afterToolCall'),
    error: pick('onToolError'),
  });
}

/** Re-exported for hook authors who narrow `error`. */
export type { ToolError };
