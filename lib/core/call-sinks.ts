import type { ToolLogger, UnexpectedErrorLevel } from './hooks.js';
import { attempt } from './detached.js';
import type { ToolCallInfo, ToolLog, ToolLogLevel, ToolProgress } from './types.js';

/** Reports a failed sink, hook or mapper; the message is only built when something failed. */
export function report(logger: ToolLogger, what: string, name: string, error: unknown): void {
  logger.error(`[toolwright] ${what} failed for "${name}":`, error);
}

/**
 * Logs a failure the caller sees as `INTERNAL_SERVER_ERROR` (a value no mapper knew, an output
 * that does not match its schema): the tool, the call and the error with its stack, never the
 * arguments or the context. `where` says where it happened when that is not the call itself.
 */
export function reportUnexpected(
  logger: ToolLogger,
  level: UnexpectedErrorLevel,
  call: ToolCallInfo,
  error: unknown,
  where = '',
): void {
  if (level === false) return;
  const log = level === 'error' ? logger.error : logger[level];
  log?.call(
    logger,
    `[toolwright] Tool "${call.name}" failed unexpectedly${where} (call ${call.id}, ${call.transport}/${call.source}):`,
    error,
  );
}

/**
 * Calls `fn(arg)`, whose failure is only reported (a sink, a hook, a listener): a throw or a
 * rejection is logged and never reaches the call. Returns a promise only if it is async.
 */
export function observe<A>(
  logger: ToolLogger,
  what: string,
  name: string,
  fn: (arg: A) => unknown,
  arg: A,
): void | Promise<void> {
  return attempt(
    () => fn(arg),
    (error) => report(logger, what, name, error),
  );
}

const ignore = () => {};
const NO_LOG: ToolLog = Object.freeze({
  debug: ignore,
  info: ignore,
  warning: ignore,
  warn: ignore,
  error: ignore,
});
const NO_PROGRESS = () => {};

/** The handler's `reportProgress`: hands each update to the surface's sink, never throwing. */
export function progressReporter(
  logger: ToolLogger,
  name: string,
  sink: ((progress: ToolProgress) => unknown) | undefined,
): (progress: ToolProgress) => void {
  if (!sink) return NO_PROGRESS;
  return (progress) => void observe(logger, 'progress sink', name, sink, progress);
}

/** The handler's `log`: hands each message to the surface's sink, never throwing. */
export function handlerLog(
  logger: ToolLogger,
  name: string,
  sink: ((level: ToolLogLevel, message: string, data?: unknown) => unknown) | undefined,
): ToolLog {
  if (!sink) return NO_LOG;
  const at = (level: ToolLogLevel) => (message: string, data?: unknown) =>
    void observe(logger, 'log sink', name, (entry) => sink(...entry), [
      level,
      message,
      data,
    ] as const);
  const warning = at('warning');
  return Object.freeze({
    debug: at('debug'),
    info: at('info'),
    warning,
    warn: warning,
    error: at('error'),
  });
}
