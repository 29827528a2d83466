import type { InstanceBus } from '../core/instance-bus.js';
import { within, type RedisClient, type RedisSubscriber } from './redis-client.js';

/** How a {@link RedisInstanceBus} reaches Redis. */
export interface RedisInstanceBusOptions {
  /** The application's client (`new Redis(url)` of `ioredis`); the bus opens one more connection from it for subscriptions. */
  redis: RedisClient;
  /** Put before every channel and key, to keep applications that share a Redis apart. @default '' */
  prefix?: string;
  /** How long a command may wait for Redis (while it reconnects, say) before it fails. @default 2000 */
  commandTimeoutMs?: number;
  /** Where a subscriber connection's errors go. @default console.error */
  onError?: (error: Error) => void;
}

/**
 * The {@link InstanceBus} of several instances: messages over Redis pub/sub, remembered values
 * as Redis keys that expire. Pub/sub delivers at most once: a message published while an
 * instance is disconnected from Redis does not reach it (a 2025-era client then sees its
 * cancellation ignored, or its question time out, as the spec allows). Every command fails
 * after `commandTimeoutMs` rather than wait for a Redis that is away.
 *
 * @example
 * import Redis from 'ioredis';
 * import { RedisInstanceBus } from 'toolwright/redis';
 *
 * ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis: new Redis(process.env.REDIS_URL!) }) } })
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
        subscribed: within(this.timeoutMs, 'a SUBSCRIBE', () => this.connection().subscribe(name)),
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

  async recall(key: string): Promise<string | undefined> {
    const value = await within(this.timeoutMs, 'a GET', () =>
      this.options.redis.get(this.prefix + key),
    );
    return value ?? undefined;
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
    let lost = false;
    subscriber.on('close', () => (lost = true));
    subscriber.on('ready', () => {
      if (!lost || this.channels.size === 0) return;
      lost = false;
      subscriber.subscribe(...this.channels.keys()).catch((error: unknown) => {
        if (this.subscriber === subscriber) this.reportError(error);
      });
    });
    subscriber.on('message', (channel, message) => {
      for (const listener of [...(this.channels.get(channel)?.listeners ?? [])]) {
        try {
          listener(message);
        } catch (error) {
          this.reportError(error);
        }
      }
    });
    subscriber.on('error', (error) => this.reportError(error));
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
      await within(this.timeoutMs, 'an UNSUBSCRIBE', () => subscriber.unsubscribe(name)).catch(
        (error: unknown) => this.reportError(error),
      );
    }
  }

  private reportError(error: unknown): void {
    const report =
      this.options.onError ??
      ((failure: Error) => console.error('[toolwright] Redis instance bus:', failure));
    report(error instanceof Error ? error : new Error(String(error)));
  }
}
