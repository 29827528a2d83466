import { randomUUID } from 'node:crypto';
import { isObservable, type Observable } from 'rxjs';
import { z } from 'zod';
import { currentFrame, runInFrame, type CallFrame } from './call-context.js';
import { normalizeError, ToolError, validationError, type ErrorMapper } from './errors.js';
import type { ComposedHooks, ToolCallEvent, ToolGuard, ToolLogger } from './hooks.js';
import type { ToolDescriptor } from './manifest.js';
import { toFailure, type ToolResult } from './result.js';
import type { ToolCall, ToolSpec } from './runtime-tool.js';
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

const NO_LOG: ToolLog = Object.freeze({
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
});
const NO_PROGRESS = () => {};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Calls a sink that must never disturb the call: its throws and rejections are logged. */
function quietly(logger: ToolLogger, label: string, fn: () => unknown): void {
  try {
    const value = fn();
    if (value instanceof Promise) value.catch((error) => logger.error(label, error));
  } catch (error) {
    logger.error(label, error);
  }
}

async function observe(logger: ToolLogger, label: string, fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (error) {
    logger.error(label, error);
  }
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
 * Waits for the handler, unless the tool's timeout passes or the caller cancels first; either way
 * the handler's signal is aborted and its late outcome is ignored.
 */
function settle(
  pending: Promise<unknown>,
  spec: ToolSpec,
  controller: AbortController,
  callerSignal: AbortSignal | undefined,
): Promise<unknown> {
  if (spec.timeoutMs === undefined && callerSignal === undefined) return pending;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onAbort);
    };
    const stop = (error: ToolError) => {
      done();
      controller.abort(error);
      reject(new Refusal(error));
    };
    const onAbort = () => stop(abortedError(spec.name));
    if (spec.timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          stop(
            new ToolError('REQUEST_TIMEOUT', {
              message: `Tool "${spec.name}" did not finish within ${spec.timeoutMs} ms.`,
            }),
          ),
        spec.timeoutMs,
      );
    }
    if (callerSignal?.aborted) return onAbort();
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        done();
        resolve(value);
      },
      (error) => {
        done();
        reject(error);
      },
    );
  });
}

function abortedError(name: string): ToolError {
  return new ToolError('REQUEST_ABORTED', { message: `The call to "${name}" was cancelled.` });
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined) {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

/**
 * A call's raw context: the ambient context of the current request (if any) with the caller's
 * explicit context merged over it.
 */
export async function resolveCallContext(
  settings: Pick<RunnerSettings, 'resolveContext'>,
  explicit: ToolContext | undefined,
): Promise<ToolContext> {
  const ambient = settings.resolveContext ? await settings.resolveContext() : undefined;
  if (!ambient) return explicit ?? {};
  return explicit ? { ...ambient, ...explicit } : ambient;
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
 * Every outcome is a `ToolResult`; this function does not reject.
 */
export function runTool(
  tool: CompiledTool,
  request: CallRequest,
  settings: RunnerSettings,
): Promise<ToolResult> {
  const parent = currentFrame();
  const call: ToolCallInfo = Object.freeze({
    id: randomUUID(),
    name: tool.spec.name,
    transport: request.transport,
    source: request.source,
    depth: parent ? parent.call.depth + 1 : 0,
    ...(parent && { parentId: parent.call.id }),
  });
  const controller = new AbortController();
  const frame: CallFrame = { call, signal: controller.signal };
  const callerSignal = combineSignals(request.signal, parent?.signal);
  return runInFrame(frame, () => execute(tool, request, settings, call, controller, callerSignal));
}

async function execute(
  tool: CompiledTool,
  request: CallRequest,
  settings: RunnerSettings,
  call: ToolCallInfo,
  controller: AbortController,
  callerSignal: AbortSignal | undefined,
): Promise<ToolResult> {
  const started = performance.now();
  const { spec } = tool;
  const { hooks, logger } = settings;
  const name = spec.name;
  let context: ToolContext = request.context ?? {};

  const attempt = async (): Promise<unknown> => {
    if (call.depth > settings.maxDepth) {
      throw new Refusal(
        new ToolError('RECURSION_LIMIT', {
          message: `Tool "${name}" was called at depth ${call.depth}, beyond the limit of ${settings.maxDepth}.`,
        }),
      );
    }
    context = await resolveCallContext(settings, request.context);

    let args = request.args ?? {};
    for (const before of hooks.before) {
      let replacement: unknown;
      try {
        replacement = await before({ name, args, context, call });
      } catch (error) {
        throw new Refusal(normalizeError(error, settings.mapError));
      }
      if (isPlainObject(replacement)) args = replacement;
    }

    const input = await parse(spec.input, args);
    if (!input.success) throw new Refusal(validationError('input', input.error));

    let handlerContext: unknown = context;
    if (spec.context) {
      const parsed = await parse(spec.context, context);
      if (!parsed.success) throw new Refusal(validationError('context', parsed.error));
      handlerContext = parsed.data;
    }

    for (const guard of tool.guards) {
      // A tool hidden from this caller's listing does not run for it either.
      const allowed =
        (guard.canList === undefined || (await guard.canList(tool.descriptor, context))) &&
        (await guard.canActivate({
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

    // A call cancelled before its handler starts never starts it.
    if (callerSignal?.aborted) {
      const error = abortedError(name);
      controller.abort(error);
      throw new Refusal(error);
    }

    const onProgress = request.onProgress;
    const onLog = request.onLog;
    const produced = tool.handler({
      input: input.data,
      context: handlerContext,
      signal: controller.signal,
      reportProgress: onProgress
        ? (progress) =>
            quietly(logger, `[toolwright] progress sink failed for "${name}":`, () =>
              onProgress(progress),
            )
        : NO_PROGRESS,
      log: onLog ? handlerLog(logger, name, onLog) : NO_LOG,
      call,
    });
    const data = await settle(
      isObservable(produced) ? lastValue(produced, controller.signal) : Promise.resolve(produced),
      spec,
      controller,
      callerSignal,
    );

    if (!spec.output) return data;
    const output = await parse(spec.output, data);
    if (!output.success) throw new OutputMismatch(output.error);
    return output.data;
  };

  let result: ToolResult;
  let thrown: { value: unknown } | undefined;
  try {
    result = { ok: true, data: await attempt() };
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
    for (const onError of hooks.error) {
      await observe(logger, `[toolwright] onToolError hook failed for "${name}":`, () =>
        onError({ name, args: request.args, context, call, error: thrown.value }),
      );
    }
  }
  const durationMs = performance.now() - started;
  for (const after of hooks.after) {
    await observe(logger, `[toolwright] afterToolCall hook failed for "${name}":`, () =>
      after({
        name,
        args: request.args,
        context,
        call,
        result,
        durationMs,
        ...(thrown && { error: thrown.value }),
      }),
    );
  }
  if (settings.onCallFinished) {
    const onCallFinished = settings.onCallFinished;
    quietly(logger, `[toolwright] call event listener failed for "${name}":`, () =>
      onCallFinished({
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
      }),
    );
  }
  return result;
}

function handlerLog(
  logger: ToolLogger,
  name: string,
  sink: NonNullable<CallRequest['onLog']>,
): ToolLog {
  const at = (level: ToolLogLevel) => (message: string, data?: unknown) =>
    quietly(logger, `[toolwright] log sink failed for "${name}":`, () =>
      sink(level, message, data),
    );
  return Object.freeze({
    debug: at('debug'),
    info: at('info'),
    warning: at('warning'),
    error: at('error'),
  });
}
