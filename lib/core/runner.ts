import { randomBytes } from 'node:crypto';
import { isObservable, type Observable } from 'rxjs';
import { z } from 'zod';
import { currentFrame, runInFrame, type CallFrame } from './call-context.js';
import { normalizeError, ToolError, validationError, type ErrorMapper } from './errors.js';
import type { ComposedHooks, ToolCallEvent, ToolGuard, ToolLogger } from './hooks.js';
import type { ToolDescriptor } from './manifest.js';
import { toFailure, type ToolResult } from './result.js';
import type { ToolCall, ToolSpec } from './runtime-tool.js';
import { drive, isThenable } from './steps.js';
import type {
  ToolCallInfo,
  ToolContext,
  ToolLog,
  ToolLogLevel,
  ToolProgress,
  ToolSource,
  ToolTransport,
} from './types.js';

/** A tool ready to run: its spec, descriptor, bound handler and every guard that applies to it. */
export interface CompiledTool {
  readonly spec: ToolSpec;
  readonly descriptor: ToolDescriptor;
  readonly handler: (call: ToolCall<any, any>) => unknown;
  readonly guards: readonly ToolGuard[];
}

/** What the runner needs besides the call: fixed when an invoker is created. */
export interface RunnerSettings {
  readonly hooks: ComposedHooks;
  readonly maxDepth: number;
  readonly mapError?: ErrorMapper;
  readonly logger: ToolLogger;
  /** The ambient context of the current request, if any (the Nest layer reads the HTTP request). */
  readonly resolveContext?: () => ToolContext | undefined | Promise<ToolContext | undefined>;
  readonly onCallFinished?: (event: ToolCallEvent) => void;
}

/** One call as a surface hands it to the runner. */
export interface CallRequest {
  readonly transport: ToolTransport;
  readonly source: ToolSource;
  readonly args: unknown;
  readonly context?: ToolContext;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: ToolProgress) => unknown;
  readonly onLog?: (level: ToolLogLevel, message: string, data?: unknown) => unknown;
}

/** A failure the pipeline defines itself (validation, refusal, timeout): not reported to `onToolError`. */
class Refusal {
  constructor(readonly error: ToolError) {}
}

/** The output did not match its schema: the client learns nothing, hooks get the ZodError. */
class OutputMismatch {
  constructor(readonly error: z.core.$ZodError) {}
}

/**
 * One call's frame. The abort controller is made only when something asks for the signal or
 * must abort it: most calls never do, and making one is the dearest step of a trivial call.
 */
class CallState implements CallFrame {
  #controller?: AbortController;

  constructor(readonly call: ToolCallInfo) {}

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  abort(reason: ToolError): void {
    (this.#controller ??= new AbortController()).abort(reason);
  }
}

/** What the handler receives; `signal` is read through to the call's lazily made controller. */
class HandlerCall implements ToolCall<unknown, unknown> {
  constructor(
    readonly input: unknown,
    readonly context: unknown,
    readonly reportProgress: (progress: ToolProgress) => void,
    readonly log: ToolLog,
    private readonly state: CallState,
  ) {}

  get call(): ToolCallInfo {
    return this.state.call;
  }

  get signal(): AbortSignal {
    return this.state.signal;
  }
}

const NO_LOG: ToolLog = Object.freeze({
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
});
const NO_PROGRESS = () => {};

// Call ids: unique per process by a counter, across processes by a random prefix.
const ID_PREFIX = randomBytes(6).toString('hex');
let lastId = 0;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reports a failed sink or hook; the message is only built when something failed. */
function report(logger: ToolLogger, what: string, name: string, error: unknown): void {
  logger.error(`[toolwright] ${what} failed for "${name}":`, error);
}

/** Calls a sink or hook whose failure is only logged; a promise only if it is async. */
function observe(
  logger: ToolLogger,
  what: string,
  name: string,
  value: unknown,
): void | Promise<void> {
  if (!isThenable(value)) return;
  return Promise.resolve(value).then(
    () => undefined,
    (error) => report(logger, what, name, error),
  );
}

function parse(schema: z.ZodType, value: unknown) {
  try {
    return schema.safeParse(value);
  } catch (error) {
    // A schema with async refinements cannot parse synchronously.
    if (error instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(value);
    throw error;
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

/**
 * The handler's outcome, unless the tool's timeout passes or the caller cancels first; either
 * way the handler's signal is aborted and its late outcome is ignored.
 */
function settle(
  produced: unknown,
  spec: ToolSpec,
  state: CallState,
  callerSignal: AbortSignal | undefined,
): unknown {
  const pending = isObservable(produced) ? lastValue(produced, state.signal) : produced;
  if (spec.timeoutMs === undefined && callerSignal === undefined) return pending;
  if (!isThenable(pending) && !callerSignal?.aborted) return pending;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    };
    const stop = (error: ToolError) => {
      done();
      state.abort(error);
      reject(new Refusal(error));
    };
    const onAbort = () => stop(cancelled(spec));
    if (callerSignal?.aborted) return onAbort();
    if (spec.timeoutMs !== undefined) {
      const ms = spec.timeoutMs;
      timer = setTimeout(
        () =>
          stop(
            new ToolError('REQUEST_TIMEOUT', {
              message: `Tool "${spec.name}" did not finish within ${ms} ms.`,
            }),
          ),
        ms,
      );
    }
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(pending).then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

function cancelled(spec: ToolSpec): ToolError {
  return new ToolError('REQUEST_ABORTED', { message: `The call to "${spec.name}" was cancelled.` });
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined) {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

const NO_CONTEXT: ToolContext = Object.freeze({});

function mergeContext(ambient: ToolContext | undefined, explicit: ToolContext | undefined) {
  if (!ambient) return explicit ?? NO_CONTEXT;
  return explicit ? { ...ambient, ...explicit } : ambient;
}

/**
 * A call's raw context: the ambient context of the current request (if any) with the caller's
 * explicit context merged over it. Synchronous when the resolver is.
 */
export function resolveCallContext(
  settings: Pick<RunnerSettings, 'resolveContext'>,
  explicit: ToolContext | undefined,
): ToolContext | Promise<ToolContext> {
  if (!settings.resolveContext) return explicit ?? NO_CONTEXT;
  const ambient = settings.resolveContext();
  return isThenable(ambient)
    ? Promise.resolve(ambient).then((resolved) => mergeContext(resolved, explicit))
    : mergeContext(ambient, explicit);
}

/** Whether every guard of a tool lets it be listed for a context. */
export async function isListable(tool: CompiledTool, context: ToolContext): Promise<boolean> {
  for (const guard of tool.guards) {
    if (guard.canList && (await guard.canList(tool.descriptor, context)) !== true) return false;
  }
  return true;
}

/**
 * Runs one call of a tool through the canonical pipeline: its own async context, depth bound,
 * context resolution, `beforeToolCall`, input and context parsing, guards, the handler (with
 * timeout and cancellation), output parsing, then `onToolError`, `afterToolCall` and the event.
 * Every outcome is a `ToolResult`, synchronous when nothing on the way was asynchronous; it
 * never throws or rejects.
 */
export function runTool(
  tool: CompiledTool,
  request: CallRequest,
  settings: RunnerSettings,
): ToolResult | Promise<ToolResult> {
  const parent = currentFrame();
  const call: ToolCallInfo = parent
    ? {
        id: nextId(),
        name: tool.spec.name,
        transport: request.transport,
        source: request.source,
        depth: parent.call.depth + 1,
        parentId: parent.call.id,
      }
    : {
        id: nextId(),
        name: tool.spec.name,
        transport: request.transport,
        source: request.source,
        depth: 0,
      };
  const run = new Run(tool, request, settings, new CallState(Object.freeze(call)));
  // A nested call is cancelled with its parent.
  run.callerSignal = parent ? combineSignals(request.signal, parent.signal) : request.signal;
  return runInFrame(run.state, () => drive(execute(run)));
}

function nextId(): string {
  return `${ID_PREFIX}-${(++lastId).toString(36)}`;
}

/** Everything one call's pipeline reads and writes. */
class Run {
  context: ToolContext;
  callerSignal: AbortSignal | undefined;

  constructor(
    readonly tool: CompiledTool,
    readonly request: CallRequest,
    readonly settings: RunnerSettings,
    readonly state: CallState,
  ) {
    this.context = request.context ?? NO_CONTEXT;
  }
}

// The pipeline reads as async code: each `yield` is an `await` that does not wait for a value
// that is already there (see drive()).
function* execute(run: Run): Generator<unknown, ToolResult, unknown> {
  const started = performance.now();
  const { tool, request, settings, state } = run;
  const { spec } = tool;
  const { hooks, logger } = settings;
  const { call } = state;
  const name = spec.name;
  let context = run.context;

  let result: ToolResult;
  let thrown: { value: unknown } | undefined;
  try {
    if (call.depth > settings.maxDepth) {
      throw new Refusal(
        new ToolError('RECURSION_LIMIT', {
          message: `Tool "${name}" was called at depth ${call.depth}, beyond the limit of ${settings.maxDepth}.`,
        }),
      );
    }
    context = (yield resolveCallContext(settings, request.context)) as ToolContext;

    let args = request.args ?? {};
    for (const before of hooks.before) {
      let replacement: unknown;
      try {
        replacement = yield before({ name, args, context, call });
      } catch (error) {
        throw new Refusal(normalizeError(error, settings.mapError));
      }
      if (isPlainObject(replacement)) args = replacement;
    }

    const input = (yield parse(spec.input, args)) as z.ZodSafeParseResult<unknown>;
    if (!input.success) throw new Refusal(validationError('input', input.error));

    let handlerContext: unknown = context;
    if (spec.context) {
      const parsed = (yield parse(spec.context, context)) as z.ZodSafeParseResult<unknown>;
      if (!parsed.success) throw new Refusal(validationError('context', parsed.error));
      handlerContext = parsed.data;
    }

    for (const guard of tool.guards) {
      // A tool hidden from this caller's listing does not run for it either.
      const listed = guard.canList ? yield guard.canList(tool.descriptor, context) : true;
      const allowed =
        listed === true &&
        (yield guard.canActivate({
          tool: tool.descriptor,
          input: input.data,
          context: handlerContext,
          call,
        }));
      if (allowed !== true) {
        throw new Refusal(
          new ToolError('FORBIDDEN', { message: `The call to "${name}" was refused by a guard.` }),
        );
      }
    }

    // The caller may have given up while hooks or guards were pending.
    if (run.callerSignal?.aborted) throw new Refusal(cancelled(spec));
    const { onProgress, onLog } = request;
    const produced = tool.handler(
      new HandlerCall(
        input.data,
        handlerContext,
        onProgress ? progressReporter(logger, name, onProgress) : NO_PROGRESS,
        onLog ? handlerLog(logger, name, onLog) : NO_LOG,
        state,
      ),
    );
    let data = yield settle(produced, spec, state, run.callerSignal);

    if (spec.output) {
      const output = (yield parse(spec.output, data)) as z.ZodSafeParseResult<unknown>;
      if (!output.success) throw new OutputMismatch(output.error);
      data = output.data;
    }
    result = { ok: true, data };
  } catch (error) {
    if (error instanceof Refusal) {
      result = { ok: false, error: toFailure(error.error) };
    } else if (error instanceof OutputMismatch) {
      thrown = { value: error.error };
      result = {
        ok: false,
        error: toFailure(
          new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }),
        ),
      };
    } else {
      thrown = { value: error };
      result = { ok: false, error: toFailure(normalizeError(error, settings.mapError)) };
    }
  }

  if (thrown) {
    const error = thrown.value;
    for (const onError of hooks.error) {
      try {
        yield observe(
          logger,
          'onToolError hook',
          name,
          onError({ name, args: request.args, context, call, error }),
        );
      } catch (hookError) {
        report(logger, 'onToolError hook', name, hookError);
      }
    }
  }
  const durationMs = performance.now() - started;
  if (hooks.after.length > 0) {
    const options = thrown
      ? { name, args: request.args, context, call, result, durationMs, error: thrown.value }
      : { name, args: request.args, context, call, result, durationMs };
    for (const after of hooks.after) {
      try {
        yield observe(logger, 'afterToolCall hook', name, after(options));
      } catch (hookError) {
        report(logger, 'afterToolCall hook', name, hookError);
      }
    }
  }
  if (settings.onCallFinished) {
    const event: ToolCallEvent = {
      name,
      identity: spec.identity,
      transport: call.transport,
      source: call.source,
      ok: result.ok,
      ...(!result.ok && { errorCode: result.error.code }),
      durationMs,
      callId: call.id,
      ...(call.parentId !== undefined && { parentId: call.parentId }),
      depth: call.depth,
    };
    try {
      observe(logger, 'call event listener', name, settings.onCallFinished(event));
    } catch (listenerError) {
      report(logger, 'call event listener', name, listenerError);
    }
  }
  return result;
}

/** Calls a sink that must never disturb the call. */
function sinkCall(logger: ToolLogger, name: string, what: string, fn: () => unknown): void {
  try {
    observe(logger, what, name, fn());
  } catch (error) {
    report(logger, what, name, error);
  }
}

function progressReporter(
  logger: ToolLogger,
  name: string,
  sink: NonNullable<CallRequest['onProgress']>,
) {
  return (progress: ToolProgress) => sinkCall(logger, name, 'progress sink', () => sink(progress));
}

function handlerLog(
  logger: ToolLogger,
  name: string,
  sink: NonNullable<CallRequest['onLog']>,
): ToolLog {
  const at = (level: ToolLogLevel) => (message: string, data?: unknown) =>
    sinkCall(logger, name, 'log sink', () => sink(level, message, data));
  return Object.freeze({
    debug: at('debug'),
    info: at('info'),
    warning: at('warning'),
    error: at('error'),
  });
}
