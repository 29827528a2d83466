import type { z } from 'zod';
import {
  askConfirm,
  askElicit,
  type AskingCall,
  type ElicitationResult,
  type ToolAsk,
} from './asking.js';
import type { CallFrame } from './call-context.js';
import { handlerLog, observe, progressReporter, report, reportUnexpected } from './call-sinks.js';
import type { RunningWork } from './drain.js';
import { isProgrammingError, normalizeError, ToolError } from './errors.js';
import type { CallerSignal, WaitingCall } from './handler-wait.js';
import type { ToolErrorEvent } from './hooks.js';
import type { CallRequest, CompiledTool, RunnerSettings } from './runner.js';
import type { ToolCall } from './runtime-tool.js';
import type { CallTelemetry } from './telemetry.js';
import type { ToolCallInfo, ToolContext, ToolLog, ToolProgress } from './types.js';

const NO_CONTEXT: ToolContext = Object.freeze({});

/**
 * One call: everything its pipeline reads and writes, and its frame in the async context (what
 * nested calls and `currentToolCall()` see). Also its place in the invoker's drain, and what
 * aborts it. The abort controller is made only when something asks for the signal: most calls
 * never do, and making one is the dearest step of a trivial call.
 */
export class Run implements CallFrame, WaitingCall, RunningWork {
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
  errorHookOptions(error: unknown): ToolErrorEvent {
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
    return {
      call: run.call,
      asks: run.tool.spec.asks,
      ask: run.ask,
      signal: run.signal,
      logger: run.settings.logger,
    };
  }
}

/** What the handler receives for this call: its input and context, and the call's sinks. */
export function handlerCall(
  run: Run,
  input: unknown,
  context: unknown,
): ToolCall<unknown, unknown> {
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
