import { BoundedMap } from './bounded-map.js';
import { attempt, ignore } from './detached.js';

/**
 * What must cross the instances of one application behind a load balancer: messages every
 * instance receives (a 2025-era cancellation or answer reaches the instance running the call it
 * names), and short-lived facts any instance reads (which 2025-era callers can answer a
 * question). One process needs nothing more than {@link InMemoryInstanceBus}, the default;
 * several share one `RedisInstanceBus` (`toolwright/redis`).
 *
 * An implementation settles every promise it returns within a bounded time, and delivers each
 * message to every listener of its channel on every instance, the publishing one included.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL!);
 * redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
 * ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } });
 */
export interface InstanceBus {
  /** Sends a message to every listener of the channel, on every instance. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Calls `listener` with each message published on the channel from now on. Resolves, once
   * the subscription is in place, to the function that ends it.
   */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Keeps a value under a key for `ttlMs`, for every instance to read. */
  remember(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value kept under a key, unless it expired. */
  recall(key: string): Promise<string | undefined>;
  /**
   * Keeps a value under a key for `ttlMs` unless one is kept there already, as one step every
   * instance sees alike; resolves to whether it did. Of instances claiming one key at the same
   * time, one gets `true`: what may be used once (a spent `requestState`) is claimed with it.
   */
  rememberIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
}

/**
 * The {@link InstanceBus} of a single process: messages reach this process's listeners at
 * once, and remembered values live in memory, the oldest forgotten first beyond `maxKeys`.
 *
 * @example
 * const bus = new InMemoryInstanceBus();
 * await bus.subscribe('jobs', (message) => console.log(message));
 * await bus.publish('jobs', 'done'); // logs "done"
 */
export class InMemoryInstanceBus implements InstanceBus {
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly values: BoundedMap<string, { value: string; expiresAt: number }>;

  constructor(options: { maxKeys?: number } = {}) {
    this.values = new BoundedMap(options.maxKeys ?? 10_000);
  }

  publish(channel: string, message: string): Promise<void> {
    // A listener's failure is its own (it reports it): the others still hear the message.
    for (const listener of [...(this.channels.get(channel) ?? [])]) {
      attempt(() => listener(message), ignore);
    }
    return Promise.resolve();
  }

  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    // Each subscription is its own entry, even for a listener subscribed twice.
    const entry = (message: string) => listener(message);
    let listeners = this.channels.get(channel);
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    listeners.add(entry);
    return Promise.resolve(() => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.channels.get(channel) === listeners) {
        this.channels.delete(channel);
      }
      return Promise.resolve();
    });
  }

  remember(key: string, value: string, ttlMs: number): Promise<void> {
    // Deleted first, so that a value remembered again becomes the newest.
    this.values.delete(key);
    this.values.set(key, { value, expiresAt: Date.now() + ttlMs });
    return Promise.resolve();
  }

  recall(key: string): Promise<string | undefined> {
    const entry = this.values.get(key);
    if (entry === undefined || entry.expiresAt > Date.now()) return Promise.resolve(entry?.value);
    this.values.delete(key);
    return Promise.resolve(undefined);
  }

  rememberIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.values.get(key);
    if (entry !== undefined && entry.expiresAt > Date.now()) return Promise.resolve(false);
    this.values.delete(key);
    this.values.set(key, { value, expiresAt: Date.now() + ttlMs });
    return Promise.resolve(true);
  }
}
