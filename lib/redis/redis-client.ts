/**
 * The commands of a Redis client that toolwright's Redis parts use, as `ioredis` (5 or later)
 * provides them: pass an `ioredis` `Redis` instance.
 */
export interface RedisClient {
  /** `PING`; a client without it is pinged with a one-line script. */
  ping?(): Promise<unknown>;
  /** The connection's state (`ready`, `reconnecting`, …), as `ioredis` keeps it. */
  readonly status?: string;
  publish(channel: string, message: string): Promise<number>;
  set(key: string, value: string, millisecondsToken: 'PX', milliseconds: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
  hget(key: string, field: string): Promise<string | null>;
  zrevrank(key: string, member: string): Promise<number | null>;
  zrevrange(key: string, start: number, stop: number): Promise<string[]>;
  zrem(key: string, member: string): Promise<number>;
  /** Runs a Lua script atomically (`EVAL`). */
  eval(
    script: string,
    numberOfKeys: number,
    ...keysAndArgs: Array<string | number>
  ): Promise<unknown>;
  /**
   * A new connection with the same options but those given, for subscriptions (which take a
   * connection over).
   */
  duplicate(override?: {
    maxRetriesPerRequest?: number | null;
    autoResubscribe?: boolean;
  }): RedisSubscriber;
}

/** A connection in subscriber mode, as `ioredis` provides one. */
export interface RedisSubscriber {
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** `ready` each time the connection is (re)established, `close` each time it is lost. */
  on(event: 'ready' | 'close', listener: () => void): unknown;
  /** Closes the connection at once and stops reconnecting; pending commands reject. */
  disconnect(): void;
}

/**
 * A Redis command that gives up after `ms`: `ioredis` queues commands while it reconnects, and
 * a caller waiting on Redis must not wait for ever. The timer goes when the command settles.
 * An answer that came while the process was too busy to read it is no timeout: timers run
 * before the event loop reads its sockets, so the expired timer rejects only after they are
 * read (a `setImmediate`), and an answer read then has settled the command first. The error
 * says why when `lastError` knows: the connection's last error (`connect ECONNREFUSED …`).
 */
export function within<T>(
  ms: number,
  what: string,
  command: () => Promise<T>,
  lastError?: () => Error | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => setImmediate(() => reject(unanswered(ms, what, lastError?.()))),
      ms,
    );
    let pending: Promise<T>;
    try {
      pending = command();
    } catch (error) {
      clearTimeout(timer);
      return reject(error);
    }
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The error of a command Redis did not answer in time, with what kept it from answering. */
function unanswered(ms: number, what: string, cause: Error | undefined): Error {
  const why = cause ? ` (${cause.message})` : '';
  return new Error(`Redis did not answer ${what} within ${ms} ms${why}.`, cause && { cause });
}

/** The states of an `ioredis` connection that cannot answer a command now. */
const DOWN = new Set(['reconnecting', 'close', 'end']);

/**
 * Checks that Redis answers: at once rejects for a connection known to be down (`ioredis`
 * reconnecting, closed), else sends a `PING` that gives up after `ms`.
 */
export async function pingRedis(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status !== undefined && DOWN.has(redis.status)) {
    throw new Error(`Redis is not connected (the connection is ${redis.status}).`);
  }
  await within(ms, 'a PING', () => (redis.ping ? redis.ping() : redis.eval("return 'PONG'", 0)));
}
