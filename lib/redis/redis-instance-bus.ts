import { attempt, detached, ignore } from '../core/detached.js';
import type { InstanceBus } from '../core/instance-bus.js';
import { pingRedis, within, type RedisClient, type RedisSubscriber } from './redis-client.js';

/** How a {@link RedisInstanceBus} reaches Redis. */
export interface RedisInstanceBusOptions {
  /**
   * The application's client (`new Redis(url)` of `ioredis`, with an `error` listener of the
   * application's); the bus opens one more connection from it for subscriptions, and listens
   * to that one's errors itself.
   */
  redis: RedisClient;
  /** Put before every channel and key, to keep applications that share a Redis apart. @default '' */
  prefix?: string;
  /** How long a command may wait for Redis (while it reconnects, say) before it fails. @default 2000 */
  commandTimeoutMs?: number;
  /**
   * Where the bus's failures go: a listener that threw, a subscription that could not be
   * restored, and the loss of its subscriber connection (once per outage, not once per attempt
   * to reconnect). @default stderr
   */
  onError?: (error: Error) => void;
}

/**
 * The {@link InstanceBus} of several instances: messages over Redis pub/sub, remembered values
 * as Redis keys that expire. Pub/sub delivers at most once: a message published while an
 * instance is disconnected from Redis does not reach it (a 2025-era client then sees its
 * cancellation ignored, or its question time out, as the spec allows). Every command fails
 * after `commandTimeoutMs` rather than wait for a Redis that is away; subscriptions are made
 * again once it is back. A Nest application whose Redis is away at startup starts all the
 * same, and subscribes once Redis answers (`mcp.busRequired` makes it refuse to start instead).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisInstanceBus } from 'toolwright/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL!);
 * // ioredis reconnects by itself; without a listener it prints each failed attempt as an unhandled error.
 * redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
 * ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } });
 */
export class RedisInstanceBus implements InstanceBus {
  private readonly prefix: string;
  private readonly timeoutMs: number;
  /** Each subscribed channel: its listeners, and its SUBSCRIBE (one per channel). */
  private readonly channels = new Map<
    string,
    { readonly listeners: Set<(message: string) => void>; readonly subscribed: Promise<unknown> }
  >();
  /** The subscriber connection, while any channel has a listener. */
  private subscriber?: RedisSubscriber;
  /** Its last error since it was last ready: why a SUBSCRIBE waiting for it gets no answer. */
  private connectionError?: Error;

  constructor(private readonly options: RedisInstanceBusOptions) {
    this.prefix = options.prefix ?? '';
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
  }

  publish(channel: string, message: string): Promise<void> {
    return within(this.timeoutMs, 'a PUBLISH', () =>
      this.options.redis.publish(this.prefix + channel, message),
    ).then(() => undefined);
  }

  async subscribe(
    channel: string,
    listener: (message: string) => void,
  ): Promise<() => Promise<void>> {
    const name = this.prefix + channel;
    const entry = (message: string) => listener(message);
    let subscription = this.channels.get(name);
    if (!subscription) {
      subscription = {
        listeners: new Set(),
        subscribed: within(
          this.timeoutMs,
          'a SUBSCRIBE',
          () => this.connection().subscribe(name),
          () => this.connectionError,
        ),
      };
      this.channels.set(name, subscription);
    }
    subscription.listeners.add(entry);
    try {
      await subscription.subscribed;
    } catch (error) {
      await this.forget(name, entry);
      throw error;
    }
    let ended = false;
    return () => {
      if (ended) return Promise.resolve();
      ended = true;
      return this.forget(name, entry);
    };
  }

  remember(key: string, value: string, ttlMs: number): Promise<void> {
    return within(this.timeoutMs, 'a SET', () =>
      this.options.redis.set(this.prefix + key, value, 'PX', Math.max(1, Math.ceil(ttlMs))),
    ).then(() => undefined);
  }

  async rememberIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const kept = await within(this.timeoutMs, 'a SET NX', () =>
      this.options.redis.eval(
        "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')",
        1,
        this.prefix + key,
        value,
        Math.max(1, Math.ceil(ttlMs)),
      ),
    );
    return kept !== null;
  }

  async recall(key: string): Promise<string | undefined> {
    const value = await within(this.timeoutMs, 'a GET', () =>
      this.options.redis.get(this.prefix + key),
    );
    return value ?? undefined;
  }

  /**
   * Resolves when Redis answers a `PING` within `commandTimeoutMs`; rejects at once while the
   * connection is known to be down. What a readiness check (`ToolsHealthModule`) asks.
   */
  ping(): Promise<void> {
    return pingRedis(this.options.redis, this.timeoutMs);
  }

  /** The subscriber connection, opened on the first subscription. */
  private connection(): RedisSubscriber {
    if (this.subscriber) return this.subscriber;
    // Its commands wait for Redis to come back (each under `within`). The bus subscribes again
    // itself after a reconnection: the SUBSCRIBE ioredis would send on its own is a promise
    // nobody handles, and it rejects when the connection is closed before Redis answers it,
    // which ends a Node process.
    const subscriber = this.options.redis.duplicate({
      maxRetriesPerRequest: null,
      autoResubscribe: false,
    });
    const failed = (error: unknown) => this.reportError(error);
    this.connectionError = undefined;
    let lost = false;
    // An outage is reported at its first error, not at each attempt to reconnect. Before the
    // connection was ever ready nothing is reported: the SUBSCRIBE waiting for it fails with
    // the error, to a caller that reports it.
    let reported = true;
    subscriber.on('close', () => (lost = true));
    subscriber.on('ready', () => {
      this.connectionError = undefined;
      reported = false;
      if (!lost || this.channels.size === 0) return;
      lost = false;
      detached(
        () => subscriber.subscribe(...this.channels.keys()),
        (error) => {
          if (this.subscriber === subscriber) failed(error);
        },
      );
    });
    subscriber.on('message', (channel, message) => {
      for (const listener of [...(this.channels.get(channel)?.listeners ?? [])]) {
        void attempt(() => listener(message), failed);
      }
    });
    subscriber.on('error', (error) => {
      this.connectionError = error;
      if (reported) return;
      reported = true;
      this.reportError(
        new Error(
          `lost its connection to Redis (${error.message}); it subscribes again once Redis answers.`,
          { cause: error },
        ),
        { stack: false },
      );
    });
    return (this.subscriber = subscriber);
  }

  /** Ends one subscription; the channel's last one unsubscribes, the bus's last one disconnects. */
  private async forget(name: string, entry: (message: string) => void): Promise<void> {
    const subscription = this.channels.get(name);
    if (!subscription?.listeners.delete(entry) || subscription.listeners.size > 0) return;
    this.channels.delete(name);
    const subscriber = this.subscriber;
    if (!subscriber) return;
    if (this.channels.size === 0) {
      // Closed at once: a QUIT would wait for a Redis that may be away, while the connection
      // kept reconnecting. Its pending commands reject, each to a caller that handles it.
      this.subscriber = undefined;
      subscriber.disconnect();
    } else {
      await within(
        this.timeoutMs,
        'an UNSUBSCRIBE',
        () => subscriber.unsubscribe(name),
        () => this.connectionError,
      ).catch((error: unknown) => this.reportError(error));
    }
  }

  /**
   * Hands a failure to `onError`, else prints it on stderr: with its stack, or as one line for
   * an expected one (a lost connection). A reporter that throws is ignored.
   */
  private reportError(error: unknown, { stack = true } = {}): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    detached(() => {
      if (this.options.onError) return this.options.onError(failure);
      console.error('[toolwright] Redis instance bus:', stack ? failure : failure.message);
    }, ignore);
  }
}
