import type { LoggingLevel } from '@modelcontextprotocol/server';
import { isThenable } from '../core/maybe-async.js';
import type { ToolLogLevel, ToolProgress } from '../core/types.js';

/** Sends a notification on a call's request stream (see `McpCallChannel.notify`). */
type Notify = (method: string, params: Record<string, unknown>) => unknown;

const LOG_LEVELS: Readonly<Record<ToolLogLevel, LoggingLevel>> = {
  debug: 'debug',
  info: 'info',
  warning: 'warning',
  error: 'error',
};

/**
 * A call's notification sender that keeps what is still being sent (failures are the sinks' to
 * report), so that the answer can go out after them.
 */
export function pendingNotifications(
  send: Notify,
): Notify & { readonly pending: Promise<unknown>[] } {
  const pending: Promise<unknown>[] = [];
  const notify = (method: string, params: Record<string, unknown>) => {
    const sending = send(method, params);
    if (isThenable(sending)) pending.push(Promise.resolve(sending).catch(() => undefined));
    return sending;
  };
  return Object.assign(notify, { pending });
}

/** A call's `onLog`: each line a `notifications/message`, its data beside the message. */
export function logSink(notify: Notify) {
  return (level: ToolLogLevel, message: string, data?: unknown) =>
    notify('notifications/message', {
      level: LOG_LEVELS[level],
      data: data === undefined ? message : { message, data },
    });
}

/**
 * Sends `notifications/progress` when the request carries a progress token. A missing
 * `progress` sends the next ordinal (from 1); a value that does not increase on the last one
 * sent is dropped (the spec requires increasing progress). The first value may be 0.
 */
export function progressSink(notify: Notify, token: unknown) {
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  let last: number | undefined;
  return (update: ToolProgress) => {
    const progress = update.progress ?? (last ?? 0) + 1;
    if (last !== undefined && progress <= last) return;
    last = progress;
    return notify('notifications/progress', {
      progressToken: token,
      progress,
      ...(update.total !== undefined && { total: update.total }),
      ...(update.message !== undefined && { message: update.message }),
    });
  };
}
