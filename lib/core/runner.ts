import { randomBytes } from 'node:crypto';
import { isObservable, type Observable } from 'rxjs';
import { z } from 'zod';
import { currentFrame, runInFrame, type CallFrame } from './call-context.js';
import { normalizeError, ToolError, validationError, type ErrorMapper } from './errors.js';
import type { ComposedHooks, ToolCallEvent, ToolGuard, ToolLogger } from './hooks.js';
import type { ToolDescriptor } from './manifest.js';
import { attachPresentation } from './presentation.js';
import { toFailure, type ToolResult } from './result.js';
import type { ToolCall, ToolPresenters, ToolSpec } from './runtime-tool.js';
import { shuttingDown, type Shutdown } from './shutdown.js';
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
  /** The invoker's in-flight calls, for a graceful shutdown. */
  readonly shutdown?: Shutdown;
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
  /** Which of the tool's presenters to run on a success, inside the call (its throw is a failure). */
  readonly present?: keyof ToolPresenters;
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
    // The deadline is also checked when the handler settles: with the event loop lagging, the
    // handler's own timers may run before the timeout's, and a late outcome is still late.
    let deadline = Infinity;
    if (spec.timeoutMs !== undefined) {
      const ms = spec.timeoutMs;
      deadline = performance.now() + ms;
      timer = setTimeout(() => stop(timedOut(spec, ms)), ms);
    }
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(pending).then(
      (value) => {
        if (performance.now() >= deadline) return stop(timedOut(spec, spec.timeoutMs!));
        done();
        resolve(value);
      },
      (error: unknown) => {
        if (performance.now() >= deadline) return stop(timedOut(spec, spec.timeoutMs!));
        done();
        reject(error);
      },
    );
  });
}

function timedOut(spec: ToolSpec, ms: number): ToolError {
  return new ToolError('REQUEST_TIMEOUT', {
    message: `Tool "${spec.name}" did not finish within ${ms} ms.`,
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
  presentation: unknown;

  constructor(
    readonly tool: CompiledTool,
    readonly request: CallRequest,
    readonly settings: RunnerSettings,
    readonly state: CallState,
  ) {
    this.context = request.context ?? NO_CONTEXT;
  }
}

/** How a call ended: its result, and the value a guard or the handler threw, if any. */
interface Outcome {
  readonly result: ToolResult;
  readonly thrown?: { readonly value: unknown };
}

// The pipeline reads as async code whose `yield` is `await` (see drive()), and it yields only
// what is pending (`if (isThenable(x)) x = yield x`): a step whose value is already there costs
// neither a promise nor a suspension.
function* execute(run: Run): Generator<unknown, ToolResult, unknown> {
  const started = performance.now();
  const { tool, request, settings } = run;
  const inFlight = settings.shutdown?.enter(run.state);
  let outcome: Outcome;
  try {
    const result: ToolResult = { ok: true, data: yield* attempt(run) };
    if (run.presentation !== undefined) attachPresentation(result, run.presentation);
    outcome = { result };
  } catch (error) {
    outcome = failure(error, settings.mapError);
  }
  const durationMs = performance.now() - started;

  // Step 9: `onToolError` (for thrown values), `afterToolCall`, then the event.
  const { hooks, logger } = settings;
  const { result, thrown } = outcome;
  const { context } = run;
  const { call } = run.state;
  const name = tool.spec.name;
  if (thrown) {
    const error = thrown.value;
    for (const onError of hooks.error) {
      try {
        const pending = observe(
          logger,
          'onToolError hook',
          name,
          onError({ name, args: request.args, context, call, error }),
        );
        if (pending) yield pending;
      } catch (hookError) {
        report(logger, 'onToolError hook', name, hookError);
      }
    }
  }
  if (hooks.after.length > 0) {
    const options = thrown
      ? { name, args: request.args, context, call, result, durationMs, error: thrown.value }
      : { name, args: request.args, context, call, result, durationMs };
    for (const after of hooks.after) {
      try {
        const pending = observe(logger, 'afterToolCall hook', name, after(options));
        if (pending) yield pending;
      } catch (hookError) {
        report(logger, 'afterToolCall hook', name, hookError);
      }
    }
  }
  if (settings.onCallFinished) emit(run, result, durationMs, settings.onCallFinished);
  if (inFlight) settings.shutdown!.leave(inFlight);
  return result;
}

/** Steps 2 to 8: everything between finding the tool and reporting the outcome. */
function* attempt(run: Run): Generator<unknown, unknown, unknown> {
  const { tool, request, settings, state } = run;
  const { spec } = tool;
  const { call } = state;
  if (settings.shutdown?.closing) throw new Refusal(shuttingDown());
  if (call.depth > settings.maxDepth) {
    throw new Refusal(
      new ToolError('RECURSION_LIMIT', {
        message: `Tool "${spec.name}" was called at depth ${call.depth}, beyond the limit of ${settings.maxDepth}.`,
      }),
    );
  }
  let context = resolveCallContext(settings, request.context);
  if (isThenable(context)) context = (yield context) as ToolContext;
  run.context = context;

  let args = request.args ?? {};
  for (const before of settings.hooks.before) {
    let replacement: unknown;
    try {
      replacement = before({ name: spec.name, args, context, call });
      if (isThenable(replacement)) replacement = yield replacement;
    } catch (error) {
      const refusal = normalizeError(error, settings.mapError);
      // A refusal is deliberate; anything scrubbed to an internal error is a bug worth a log line.
      if (refusal.code === 'INTERNAL_SERVER_ERROR')
        report(settings.logger, 'beforeToolCall hook', spec.name, error);
      throw new Refusal(refusal);
    }
    if (isPlainObject(replacement)) args = replacement;
  }

  let input = parse(spec.input, args);
  if (isThenable(input)) input = (yield input) as z.ZodSafeParseResult<unknown>;
  if (!input.success) throw new Refusal(validationError('input', input.error));

  let handlerContext: unknown = context;
  if (spec.context) {
    let parsed = parse(spec.context, context);
    if (isThenable(parsed)) parsed = (yield parsed) as z.ZodSafeParseResult<unknown>;
    if (!parsed.success) throw new Refusal(validationError('context', parsed.error));
    handlerContext = parsed.data;
  }

  for (const guard of tool.guards) {
    // A tool hidden from this caller's listing does not run for it either.
    let allowed = guard.canList ? guard.canList(tool.descriptor, context) : true;
    if (isThenable(allowed)) allowed = (yield allowed) as boolean;
    if (allowed === true) {
      allowed = guard.canActivate({
        tool: tool.descriptor,
        input: input.data,
        context: handlerContext,
        call,
      });
      if (isThenable(allowed)) allowed = (yield allowed) as boolean;
    }
    if (allowed !== true) {
      throw new Refusal(
        new ToolError('FORBIDDEN', {
          message: `The call to "${spec.name}" was refused by a guard.`,
        }),
      );
    }
  }

  // The caller may have given up while hooks or guards were pending.
  if (run.callerSignal?.aborted) throw new Refusal(cancelled(spec));
  let data = settle(
    tool.handler(handlerCall(run, input.data, handlerContext)),
    spec,
    state,
    run.callerSignal,
  );
  if (isThenable(data)) data = yield data;

  let output = data;
  if (spec.output) {
    let parsed = parse(spec.output, data);
    if (isThenable(parsed)) parsed = (yield parsed) as z.ZodSafeParseResult<unknown>;
    if (!parsed.success) throw new OutputMismatch(parsed.error);
    output = parsed.data;
  }
  // A presenter runs inside the call, so a presenter that throws is a failure hooks see.
  const presenter = request.present && spec.present?.[request.present];
  if (presenter) run.presentation = presenter(output);
  return output;
}

/** The outcome of a value thrown out of the pipeline. */
function failure(error: unknown, mapError: ErrorMapper | undefined): Outcome {
  if (error instanceof Refusal) return { result: { ok: false, error: toFailure(error.error) } };
  if (error instanceof OutputMismatch) {
    return {
      result: {
        ok: false,
        error: toFailure(
          new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }),
        ),
      },
      thrown: { value: error.error },
    };
  }
  return {
    result: { ok: false, error: toFailure(normalizeError(error, mapError)) },
    thrown: { value: error },
  };
}

function handlerCall(run: Run, input: unknown, context: unknown): HandlerCall {
  const { onProgress, onLog } = run.request;
  const { logger } = run.settings;
  const name = run.tool.spec.name;
  return new HandlerCall(
    input,
    context,
    onProgress ? progressReporter(logger, name, onProgress) : NO_PROGRESS,
    onLog ? handlerLog(logger, name, onLog) : NO_LOG,
    run.state,
  );
}

function emit(
  run: Run,
  result: ToolResult,
  durationMs: number,
  listener: (event: ToolCallEvent) => void,
): void {
  const { call } = run.state;
  const name = run.tool.spec.name;
  const event: ToolCallEvent = {
    name,
    identity: run.tool.spec.identity,
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
    observe(run.settings.logger, 'call event listener', name, listener(event));
  } catch (error) {
    report(run.settings.logger, 'call event listener', name, error);
  }
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
