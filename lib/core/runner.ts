import { randomBytes } from 'node:crypto';
import type { SchemaParse, SchemaParser } from './schema-parse.js';
import { resolveCallContext, type AmbientContext } from './ambient-context.js';
import type { ToolAsk } from './asking.js';
import { currentFrame, runInFrame } from './call-context.js';
import {
  callEvent,
  failure,
  guardRefusal,
  hookRefusal,
  OutputMismatch,
  recursionLimit,
  warnOnMcpResult,
  type Outcome,
} from './call-outcome.js';
import { observe } from './call-sinks.js';
import { shuttingDown, type Drain } from './drain.js';
import { nestedTooDeep, validationError, type ErrorMapper } from './errors.js';
import { cancelled, handlerOutcome, Refusal, type CallerSignal } from './handler-wait.js';
import type {
  ComposedHooks,
  ToolCallEvent,
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
import type { ToolResult } from './result.js';
import { handlerCall, Run } from './run.js';
import { withTraceContext, type ToolTelemetry } from './telemetry.js';
import type { ToolCall, ToolPresenters, ToolSpec } from './runtime-tool.js';
import type {
  ToolCallInfo,
  ToolContext,
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
  /** The parsers of its input, context and output schemas (see `parserOf`). */
  readonly parse: {
    readonly input: SchemaParser;
    readonly context?: SchemaParser;
    readonly output?: SchemaParser;
  };
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
    throw new Refusal(recursionLimit(name, call.depth, settings.maxDepth));
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
      throw hookRefusal(run, error);
    }
    if (isPlainObject(replacement)) args = replacement;
  }

  let input: SchemaParse;
  try {
    const parsing = tool.parse.input(args);
    input = isThenable(parsing) ? ((yield parsing) as SchemaParse) : parsing;
  } catch (error) {
    // A recursive schema (`z.json()`, `z.lazy()`) runs out of stack on arguments nested
    // thousands deep: the caller learns the arguments are too deep, not what the parser hit.
    if (valueTooDeep(args)) throw new Refusal(nestedTooDeep('input', MAX_JSON_DEPTH));
    throw error;
  }
  if (!input.success) throw new Refusal(validationError('input', input.error));

  let handlerContext: unknown = context;
  if (tool.parse.context) {
    let parsed = tool.parse.context(context);
    if (isThenable(parsed)) parsed = (yield parsed) as SchemaParse;
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
    if (allowed !== true) throw new Refusal(guardRefusal(name));
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
  if (tool.parse.output) {
    let parsed = tool.parse.output(data);
    if (isThenable(parsed)) parsed = (yield parsed) as SchemaParse;
    if (!parsed.success) throw new OutputMismatch(parsed.error, data);
    output = tool.finish ? tool.finish(parsed.data, call) : parsed.data;
  } else {
    warnOnMcpResult(tool, data, settings.logger);
  }
  // A presenter runs inside the call, so a presenter that throws is a failure hooks see.
  const presenter = request.present && spec.present?.[request.present];
  if (presenter) run.presentation = presenter(output);
  return output;
}
