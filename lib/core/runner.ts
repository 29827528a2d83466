import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { resolveCallContext, type AmbientContext } from './ambient-context.js';
import {
  askConfirm,
  askElicit,
  type AskingCall,
  type ElicitationResult,
  type ToolAsk,
} from './asking.js';
import { currentFrame, runInFrame, type CallFrame } from './call-context.js';
import { handlerLog, observe, progressReporter, report, reportUnexpected } from './call-sinks.js';
import { shuttingDown, type Drain, type RunningWork } from './drain.js';
import {
  isProgrammingError,
  normalizeError,
  nestedTooDeep,
  ToolError,
  validationError,
  type ErrorMapper,
} from './errors.js';
import {
  cancelled,
  handlerOutcome,
  Refusal,
  type CallerSignal,
  type WaitingCall,
} from './handler-wait.js';
import type {
  ComposedHooks,
  ToolCallEvent,
  ToolErrorHookOptions,
  ToolGuard,
  ToolLogger,
  UnexpectedErrorLevel,
} from './hooks.js';
import { MAX_JSON_DEPTH, valueTooDeep } from './json-depth.js';
import type { ToolDescriptor } from './manifest.js';
import type { Completer } from './operations.js';
import { drive, isThenable } from './maybe-async.js';
import { attachPresentation } from './presentation.js';
import { insufficientScope, missingScopes, principalOf } from './principal.js';
import { toFailure, type ToolResult } from './result.js';
import { withTraceContext, type CallTelemetry, type ToolTelemetry } from './telemetry.js';
import type { ToolCall, ToolPresenters, ToolSpec } from './runtime-tool.js';
import type {
  ToolCallInfo,
  ToolContext,
  ToolLog,
  ToolLogLevel,
  ToolProgress,
  ToolOperation,
  ToolSource,
  ToolTransport,
} from './types.js';

/**
 * A tool (or a resource or prompt, which run the same way) ready to run: its spec, descriptor,
 * bound handler and every guard that applies to it.
 */
export interface CompiledTool {
  /** What it is: a tool, a resource (or resource template) or a prompt. */
  readonly kind: ToolOperation;
  readonly spec: ToolSpec;
  readonly descriptor: ToolDescriptor;
  readonly handler: (call: ToolCall<any, any>) => unknown;
  readonly guards: readonly ToolGuard[];
  /** A resource template's or prompt's completers, by argument (methods bound to their instance). */
  readonly completers?: Readonly<Record<string, Completer>>;
  /** Shapes the checked output for the caller and the hooks (a resource read adds its URI). */
  readonly finish?: (output: unknown, call: ToolCallInfo) => unknown;
}

/** What the runner needs besides the call: fixed when an invoker is created. */
export interface RunnerSettings {
  readonly hooks: ComposedHooks;
  readonly maxDepth: number;
  /** The application's mappers, consulted in order (see `Run.normalize`). */
  readonly mappers: readonly ErrorMapper[];
  readonly logger: ToolLogger;
  /** Where failures the caller sees as `INTERNAL_SERVER_ERROR` are logged (see `reportUnexpected`). */
  readonly logUnexpected: UnexpectedErrorLevel;
  /** The ambient context of the current request, if any. */
  readonly resolveContext?: AmbientContext;
  readonly onCallFinished?: (event: ToolCallEvent) => void;
  /** The invoker's running calls, for a graceful shutdown. */
  readonly drain?: Drain;
  /** Spans and metrics, when telemetry is on and the OpenTelemetry API is installed. */
  readonly telemetry?: ToolTelemetry;
}

/** One call as a surface hands it to the runner. */
export interface CallRequest {
  readonly transport: ToolTransport;
  readonly source: ToolSource;
  readonly args: unknown;
  readonly context?: ToolContext;
  readonly signal?: CallerSignal;
  readonly onProgress?: (progress: ToolProgress) => unknown;
  readonly onLog?: (level: ToolLogLevel, message: string, data?: unknown) => unknown;
  /** Which of the tool's presenters to run on a success, inside the call (its throw is a failure). */
  readonly present?: keyof ToolPresenters;
  /** The model's tool-call id, when an agent started the call (recorded as `gen_ai.tool.call.id`). */
  readonly toolCallId?: string;
  /** The OpenTelemetry context to parent the call's span on (an MCP request's span). */
  readonly traceContext?: unknown;
  /** How the caller answers the handler's questions; a nested call asks through its parent's. */
  readonly ask?: ToolAsk;
  /** The URI a resource read reads. */
  readonly uri?: string;
}

/** The output did not match its schema: the client learns nothing, hooks get the ZodError. */
class OutputMismatch {
  constructor(
    readonly error: z.core.$ZodError,
    readonly output: unknown,
  ) {}
}

/**
 * Whether a handler returned an MCP `CallToolResult` (`{ content: [{ type, … }] }`) instead of
 * its data, as handlers written for other MCP libraries do.
 */
function isMcpResultShape(value: unknown): boolean {
  const content = (value as { content?: unknown } | null)?.content;
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((block) => typeof (block as { type?: unknown } | null)?.type === 'string')
  );
}

const MCP_RESULT_FIX =
  'toolwright builds the MCP result (content and structuredContent) from the data a handler ' +
  'returns: return the data itself, and to choose the content blocks a model reads, declare an ' +
  'output schema and a present.mcp presenter';

// Tools already warned about returning an MCP result: the warning is given once per tool.
const warnedMcpResult = new WeakSet<CompiledTool>();

/** What the handler receives; `signal` is read through to the call's lazily made controller. */
class HandlerCall implements ToolCall<unknown, unknown> {
  constructor(
    readonly input: unknown,
    readonly context: unknown,
    readonly reportProgress: (progress: ToolProgress) => void,
    readonly log: ToolLog,
    private readonly run: Run,
  ) {}

  get call(): ToolCallInfo {
    return this.run.call;
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  /** The URI a resource read reads (see `ResourceCall`). */
  get uri(): string | undefined {
    return this.run.call.uri;
  }

  // Made when a handler reads them (most never do), bound so that they can be destructured.
  get confirm(): (message: string) => Promise<boolean> {
    return (message) => askConfirm(this.asking(), message);
  }

  get elicit(): <S extends z.ZodObject<any, any>>(request: {
    readonly message: string;
    readonly schema: S;
  }) => Promise<ElicitationResult<z.output<S>>> {
    return (request) => askElicit(this.asking(), request);
  }

  private asking(): AskingCall {
    const { run } = this;
    return { call: run.call, asks: run.tool.spec.asks, ask: run.ask, signal: run.signal };
  }
}

// Call ids: unique per process by a counter, across processes by a random prefix.
const ID_PREFIX = randomBytes(6).toString('hex');
let lastId = 0;

function nextId(): string {
  return `${ID_PREFIX}-${(++lastId).toString(36)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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

function combineSignals(a: CallerSignal | undefined, b: AbortSignal | undefined) {
  return a && b ? AbortSignal.any([abortSignalOf(a), b]) : (a ?? b);
}

/** A caller's signal as an `AbortSignal` (a nested call's, combined with its parent's). */
function abortSignalOf(signal: CallerSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
  return controller.signal;
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
        kind: tool.kind,
        transport: request.transport,
        source: request.source,
        depth: parent.call.depth + 1,
        parentId: parent.call.id,
      }
    : {
        id: nextId(),
        name: tool.spec.name,
        kind: tool.kind,
        transport: request.transport,
        source: request.source,
        depth: 0,
      };
  // Only a resource read has a URI: a tool call's identity keeps its usual shape.
  if (request.uri !== undefined) (call as { uri?: string }).uri = request.uri;
  const run = new Run(tool, request, settings, Object.freeze(call));
  // A nested call is cancelled with its parent, and asks its questions through its parent's caller.
  run.callerSignal = parent ? combineSignals(request.signal, parent.signal) : request.signal;
  run.ask = request.ask ?? parent?.ask;
  // The execute_tool span is a tool call's; a resource read or prompt get has the MCP request's.
  const telemetry =
    tool.kind !== 'tool'
      ? undefined
      : settings.telemetry?.startCall(
          run.call,
          tool.descriptor.description,
          request,
          parent?.telemetry?.span,
        );
  if (!telemetry) return runInFrame(run, runPipeline, run);
  run.telemetry = telemetry;
  // The handler runs in its span's context, so that the spans it makes are the call's children.
  return telemetry.context
    ? withTraceContext(telemetry.context, runTracedPipeline, run)
    : runInFrame(run, runPipeline, run);
}

function runPipeline(run: Run): ToolResult | Promise<ToolResult> {
  return drive(execute(run));
}

function runTracedPipeline(run: Run): ToolResult | Promise<ToolResult> {
  return runInFrame(run, runPipeline, run);
}

/**
 * One call: everything its pipeline reads and writes, and its frame in the async context (what
 * nested calls and `currentToolCall()` see). Also its place in the invoker's drain, and what
 * aborts it. The abort controller is made only when something asks for the signal: most calls
 * never do, and making one is the dearest step of a trivial call.
 */
class Run implements CallFrame, WaitingCall, RunningWork {
  context: ToolContext;
  callerSignal: CallerSignal | undefined;
  presentation: unknown;
  telemetry?: CallTelemetry;
  ask?: ToolAsk;
  #controller?: AbortController;
  abortReason?: ToolError;
  waiter?: { stop(reason: ToolError): void };
  older?: RunningWork;
  newer?: RunningWork;

  constructor(
    readonly tool: CompiledTool,
    readonly request: CallRequest,
    readonly settings: RunnerSettings,
    readonly call: ToolCallInfo,
  ) {
    this.context = request.context ?? NO_CONTEXT;
  }

  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    if (this.abortReason) return AbortSignal.abort(this.abortReason);
    return (this.#controller = new AbortController()).signal;
  }

  /** Fires the handler's signal (once) and ends the wait for the handler, if one is on. */
  abort(reason: ToolError): void {
    if (this.abortReason) return;
    this.abortReason = reason;
    this.#controller?.abort(reason);
    this.waiter?.stop(reason);
  }

  get name(): string {
    return this.tool.spec.name;
  }

  /**
   * A thrown value as the caller may see it. The application's mappers are consulted in order,
   * each like a hook: one that throws, or answers something that is not a `ToolError`, is
   * reported and passed over, as if it were not set.
   */
  normalize(error: unknown): ToolError {
    const { mappers, logger } = this.settings;
    if (ToolError.is(error)) return normalizeError(error);
    for (const mapError of mappers) {
      let mapped: unknown;
      try {
        mapped = mapError(error);
      } catch (mapperError) {
        report(logger, 'mapError', this.name, mapperError);
        continue;
      }
      if (ToolError.is(mapped)) return mapped;
      if (mapped !== undefined) {
        report(
          logger,
          'mapError',
          this.name,
          new TypeError('mapError returned a non-ToolError value'),
        );
      }
    }
    return normalizeError(error);
  }

  /** What `onToolError` receives for a value thrown in this call. */
  errorHookOptions(error: unknown): ToolErrorHookOptions {
    const { name, request, context, call } = this;
    return { name, args: request.args, context, call, error };
  }

  /** Logs a failure the caller sees as `INTERNAL_SERVER_ERROR`, at the invoker's level. */
  unexpected(error: unknown, where?: string): void {
    const { logger, logUnexpected } = this.settings;
    reportUnexpected(logger, logUnexpected, this.call, error, where);
  }

  /**
   * `onToolError` (and the log, unless it is a `ToolError` other than a programming error) for a
   * value the handler threw after its call was answered.
   */
  lateThrow(error: unknown): void {
    const { hooks, logger } = this.settings;
    if (!ToolError.is(error) || isProgrammingError(error)) {
      this.unexpected(error, ' after its call was answered');
    }
    for (const onError of hooks.error) {
      void observe(logger, 'onToolError hook', this.name, onError, this.errorHookOptions(error));
    }
  }
}

const NO_CONTEXT: ToolContext = Object.freeze({});

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
  const { request, settings, name } = run;
  const running = settings.drain?.enter(run);
  let finished: { result: ToolResult; durationMs: number } | undefined;
  try {
    let outcome: Outcome;
    try {
      const result: ToolResult = { ok: true, data: yield* attempt(run) };
      if (run.presentation !== undefined) attachPresentation(result, run.presentation);
      outcome = { result };
    } catch (error) {
      outcome = failure(run, error);
    }
    const durationMs = performance.now() - started;
    finished = { result: outcome.result, durationMs };

    // Step 9: `onToolError` (for thrown values), `afterToolCall`, then the event. Each is
    // observed: a throw or rejection is reported and changes nothing.
    const { hooks, logger } = settings;
    const { result, thrown } = outcome;
    const { context, call } = run;
    if (thrown) {
      for (const onError of hooks.error) {
        const options = run.errorHookOptions(thrown.value);
        const pending = observe(logger, 'onToolError hook', name, onError, options);
        if (pending) yield pending;
      }
    }
    if (hooks.after.length > 0) {
      const options = thrown
        ? { name, args: request.args, context, call, result, durationMs, error: thrown.value }
        : { name, args: request.args, context, call, result, durationMs };
      for (const after of hooks.after) {
        const pending = observe(logger, 'afterToolCall hook', name, after, options);
        if (pending) yield pending;
      }
    }
    const listener = settings.onCallFinished;
    if (listener) {
      const event = callEvent(run, result, durationMs);
      void observe(logger, 'call event listener', name, listener, event);
    }
    return result;
  } finally {
    if (running) settings.drain!.leave(running);
    run.telemetry?.end(finished?.result, finished?.durationMs ?? performance.now() - started);
  }
}

/** Steps 2 to 8: everything between finding the tool and reporting the outcome. */
function* attempt(run: Run): Generator<unknown, unknown, unknown> {
  const { tool, request, settings, name, call } = run;
  const { spec } = tool;
  if (settings.drain?.closing) throw new Refusal(shuttingDown());
  if (call.depth > settings.maxDepth) {
    throw new Refusal(
      new ToolError('RECURSION_LIMIT', {
        message: `Tool "${name}" was called at depth ${call.depth}, beyond the limit of ${settings.maxDepth}.`,
      }),
    );
  }
  let context = resolveCallContext(settings.resolveContext, request.context);
  if (isThenable(context)) context = (yield context) as ToolContext;
  run.context = context;
  run.telemetry?.resolved(context);

  let args = request.args ?? {};
  for (const before of settings.hooks.before) {
    let replacement: unknown;
    try {
      replacement = before({ name, args, context, call });
      if (isThenable(replacement)) replacement = yield replacement;
    } catch (error) {
      const refusal = run.normalize(error);
      // A refusal is deliberate; anything scrubbed to an internal error is a bug worth a log line.
      if (isUnexpected(error, refusal)) run.unexpected(error, ' in a beforeToolCall hook');
      throw new Refusal(refusal);
    }
    if (isPlainObject(replacement)) args = replacement;
  }

  let input: z.ZodSafeParseResult<unknown>;
  try {
    const parsing = parse(spec.input, args);
    input = isThenable(parsing) ? ((yield parsing) as z.ZodSafeParseResult<unknown>) : parsing;
  } catch (error) {
    // A recursive schema (`z.json()`, `z.lazy()`) runs out of stack on arguments nested
    // thousands deep: the caller learns the arguments are too deep, not what the parser hit.
    if (valueTooDeep(args)) throw new Refusal(nestedTooDeep('input', MAX_JSON_DEPTH));
    throw error;
  }
  if (!input.success) throw new Refusal(validationError('input', input.error));

  let handlerContext: unknown = context;
  if (spec.context) {
    let parsed = parse(spec.context, context);
    if (isThenable(parsed)) parsed = (yield parsed) as z.ZodSafeParseResult<unknown>;
    if (!parsed.success) throw new Refusal(validationError('context', parsed.error));
    handlerContext = parsed.data;
  }

  // The tool's scopes, a guard that ships with the library: checked before the application's.
  if (spec.scopes && missingScopes(spec.scopes, principalOf(context)?.scopes).length > 0) {
    throw new Refusal(insufficientScope(name, spec.scopes));
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
        new ToolError('FORBIDDEN', { message: `The call to "${name}" was refused by a guard.` }),
      );
    }
  }

  // The caller may have given up while hooks or guards were pending.
  if (run.callerSignal?.aborted) throw new Refusal(cancelled(spec));
  // A pending outcome is yielded as an Interruptible: whatever aborts the call ends the wait.
  const data = yield handlerOutcome(
    tool.handler(handlerCall(run, input.data, handlerContext)),
    spec,
    run,
    run.callerSignal,
    run,
  );

  let output = data;
  if (spec.output) {
    let parsed = parse(spec.output, data);
    if (isThenable(parsed)) parsed = (yield parsed) as z.ZodSafeParseResult<unknown>;
    if (!parsed.success) throw new OutputMismatch(parsed.error, data);
    output = tool.finish ? tool.finish(parsed.data, call) : parsed.data;
  } else if (isMcpResultShape(data) && !warnedMcpResult.has(tool)) {
    warnedMcpResult.add(tool);
    settings.logger.warn?.(
      `[toolwright] Tool "${name}" returned an MCP result ({ content: [...] }), which is sent ` +
        `as its data: ${MCP_RESULT_FIX}.`,
    );
  }
  // A presenter runs inside the call, so a presenter that throws is a failure hooks see.
  const presenter = request.present && spec.present?.[request.present];
  if (presenter) run.presentation = presenter(output);
  return output;
}

const INTERNAL = () => new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' });

/**
 * Whether a thrown value is a bug rather than an answer: no mapper made it a `ToolError`, or one
 * made it a 500, or it is a programming error (an unknown name in a nested call).
 */
function isUnexpected(thrown: unknown, normalized: ToolError): boolean {
  return (
    normalized.code === 'INTERNAL_SERVER_ERROR' &&
    (!ToolError.is(thrown) || isProgrammingError(thrown))
  );
}

/**
 * The outcome of a value thrown out of the pipeline. It never throws, whatever was thrown. A
 * failure the caller sees as an internal error is logged (`logUnexpected`).
 */
function failure(run: Run, error: unknown): Outcome {
  try {
    if (error instanceof Refusal) return { result: { ok: false, error: toFailure(error.error) } };
    if (error instanceof OutputMismatch) {
      const fix = isMcpResultShape(error.output)
        ? ` (it returned an MCP result: ${MCP_RESULT_FIX})`
        : '';
      run.unexpected(error.error, `: its output does not match its output schema${fix}`);
      return {
        result: { ok: false, error: toFailure(INTERNAL()) },
        thrown: { value: error.error },
      };
    }
    const normalized = run.normalize(error);
    if (isUnexpected(error, normalized)) run.unexpected(error);
    return { result: { ok: false, error: toFailure(normalized) }, thrown: { value: error } };
  } catch (lookFailure) {
    // A thrown value that throws when looked at (a hostile proxy) is still an internal error.
    report(run.settings.logger, 'error normalisation', run.name, lookFailure);
    return { result: { ok: false, error: toFailure(INTERNAL()) }, thrown: { value: error } };
  }
}

function handlerCall(run: Run, input: unknown, context: unknown): HandlerCall {
  const { onProgress, onLog } = run.request;
  const { logger } = run.settings;
  const { telemetry } = run;
  return new HandlerCall(
    input,
    context,
    progressReporter(logger, run.name, telemetry ? telemetry.progressSink(onProgress) : onProgress),
    handlerLog(logger, run.name, telemetry ? telemetry.logSink(onLog) : onLog),
    run,
  );
}

function callEvent(run: Run, result: ToolResult, durationMs: number): ToolCallEvent {
  const { call } = run;
  return {
    name: run.name,
    kind: call.kind,
    ...(call.uri !== undefined && { uri: call.uri }),
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
}
