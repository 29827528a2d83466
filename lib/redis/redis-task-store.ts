import type { TaskRecord, TaskStore } from '../core/task-store.js';
import { pingRedis, within, type RedisClient } from './redis-client.js';

/** How a {@link RedisTaskStore} reaches Redis. */
export interface RedisTaskStoreOptions {
  /** The application's client (`new Redis(url)` of `ioredis`). */
  redis: RedisClient;
  /** Put before every key, to keep applications that share a Redis apart. @default '' */
  prefix?: string;
  /** How long a command may wait for Redis (while it reconnects, say) before it fails. @default 2000 */
  commandTimeoutMs?: number;
}

// A task is a hash: its status (which the scripts compare), its JSON, and its lease (renewed
// apart from the JSON). It expires `ttlMs` after its creation; an update keeps that time. Each
// owner has three sorted sets of task ids: by creation (the listing's order), by expiry, and the
// live ones by lease. Each index expires with the last task it names.

const TERMINAL = `
local function terminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end`;

// Drops from an owner's indexes the ids of its tasks whose time is up (ARGV[1] is now), a
// bounded batch at a time: every write and every listing takes its share, in the same step.
// KEYS[1..3]: the owner's indexes by creation, by expiry, and the live ones by lease.
const PRUNE = `
local now = tonumber(ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 500)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)`;

// The owner's live tasks are counted and the new one written in one atomic step, so that
// instances creating tasks of one owner at the same time never pass the limit together.
// KEYS[4]: the task. ARGV: now, status, JSON, ttl, createdAt, expiresAt, lease, id, limit.
const CREATE = `${PRUNE}
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[9]) then return 0 end
local ttl = tonumber(ARGV[4])
redis.call('HSET', KEYS[4], 'status', ARGV[2], 'json', ARGV[3], 'lease', ARGV[7])
redis.call('PEXPIRE', KEYS[4], ttl)
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[8])
redis.call('ZADD', KEYS[3], ARGV[7], ARGV[8])
for i = 1, 3 do
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1`;

// A terminal task never changes: the check and the write are one atomic step. A task that ends
// leaves its owner's live index. KEYS: the task, the owner's live index. ARGV: status, JSON, id.
const UPDATE = `${TERMINAL}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'json', ARGV[2])
if terminal(ARGV[1]) then redis.call('ZREM', KEYS[2], ARGV[3]) end
return 1`;

// Moves the lease on (never back), in the task and in its owner's live index.
// KEYS: the task, the owner's live index. ARGV: the lease, the id.
const RENEW = `${TERMINAL}
local current = redis.call('HMGET', KEYS[1], 'status', 'lease')
if not current[1] or terminal(current[1]) then return 0 end
local lease = tonumber(ARGV[1])
if (tonumber(current[2]) or 0) < lease then
  redis.call('HSET', KEYS[1], 'lease', ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
  local ttl = redis.call('PTTL', KEYS[1])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1`;

// A page of an owner's ids, newest first, from the one after the cursor (ARGV[2], '' for none)
// or from rank ARGV[3]: the rank it starts at and the ids, or nil for a cursor it does not hold.
// KEYS: as for PRUNE. ARGV: now, cursor, start, count.
const PAGE = `${PRUNE}
local start = tonumber(ARGV[3])
if ARGV[2] ~= '' then
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[2])
  if not rank then return false end
  start = rank + 1
end
return { start, redis.call('ZREVRANGE', KEYS[1], start, start + tonumber(ARGV[4]) - 1) }`;

// The JSON and lease of each task named in KEYS.
const READ = `
local found = {}
for i, key in ipairs(KEYS) do found[i] = redis.call('HMGET', key, 'json', 'lease') end
return found`;

/**
 * The {@link TaskStore} of several instances, in Redis: each task a hash that expires `ttlMs`
 * after its creation, each owner's tasks indexed by creation time, by expiry and (the live ones)
 * by lease. Creation is one atomic script, which counts the owner's live tasks against the
 * limit and drops the ids of its expired tasks from its indexes; so is an update, which leaves a
 * terminal task as it is. Every command fails after `commandTimeoutMs` rather than wait for a
 * Redis that is away.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisTaskStore } from 'toolwright/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL!);
 * redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
 * const store = new RedisTaskStore({ redis });
 */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: RedisTaskStoreOptions) {
    this.prefix = options.prefix ?? '';
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
  }

  async create(task: TaskRecord, { maxLive }: { readonly maxLive: number }): Promise<boolean> {
    const ttlMs = Math.max(1, Math.ceil(task.ttlMs));
    const created = await this.command('an EVAL (create)', (redis) =>
      redis.eval(
        CREATE,
        4,
        ...this.indexKeys(task.owner),
        this.taskKey(task.taskId),
        Date.now(),
        task.status,
        JSON.stringify(task),
        ttlMs,
        task.createdAt,
        task.createdAt + ttlMs,
        task.leaseUntil,
        task.taskId,
        maxLive,
      ),
    );
    return created === 1;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const [found] = await this.read([taskId]);
    return found;
  }

  async update(next: TaskRecord): Promise<boolean> {
    const updated = await this.command('an EVAL (update)', (redis) =>
      redis.eval(
        UPDATE,
        2,
        this.taskKey(next.taskId),
        this.liveKey(next.owner),
        next.status,
        JSON.stringify(next),
        next.taskId,
      ),
    );
    return updated === 1;
  }

  async renew(task: TaskRecord, leaseUntil: number): Promise<boolean> {
    const renewed = await this.command('an EVAL (renew)', (redis) =>
      redis.eval(
        RENEW,
        2,
        this.taskKey(task.taskId),
        this.liveKey(task.owner),
        leaseUntil,
        task.taskId,
      ),
    );
    return renewed === 1;
  }

  async list(
    owner: string,
    { cursor, limit }: { cursor?: string; limit: number },
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined> {
    const tasks: TaskRecord[] = [];
    let after = cursor ?? '';
    let start = 0;
    // A task that expired since the indexes were pruned is skipped: one more page fills its place.
    for (;;) {
      // One id more than the page still needs, to tell whether another page follows.
      const count = limit - tasks.length + 1;
      const page = (await this.command('an EVAL (page)', (redis) =>
        redis.eval(PAGE, 3, ...this.indexKeys(owner), Date.now(), after, start, count),
      )) as [number, string[]] | null;
      if (page === null) return undefined;
      const [from, ids] = page;
      const found = await this.read(ids);
      for (const task of found) {
        if (tasks.length === limit) return { tasks, nextCursor: tasks.at(-1)!.taskId };
        if (task) tasks.push(task);
      }
      if (ids.length < count) return { tasks };
      after = '';
      start = from + ids.length;
    }
  }

  /**
   * Resolves when Redis answers a `PING` within `commandTimeoutMs`; rejects at once while the
   * connection is known to be down. What a readiness check (`ToolsHealthModule`) asks.
   */
  ping(): Promise<void> {
    return pingRedis(this.options.redis, this.timeoutMs);
  }

  /** The tasks of these ids, in one round trip: `undefined` for each one that is gone. */
  private async read(ids: readonly string[]): Promise<Array<TaskRecord | undefined>> {
    if (ids.length === 0) return [];
    const found = (await this.command(
      ids.length === 1 ? 'an EVAL (get)' : 'an EVAL (read)',
      (redis) => redis.eval(READ, ids.length, ...ids.map((id) => this.taskKey(id))),
    )) as Array<[string | null, string | null]>;
    return found.map(([json, lease]) => {
      if (json === null) return undefined;
      const task = JSON.parse(json) as TaskRecord;
      const renewed = Number(lease);
      return renewed > task.leaseUntil ? { ...task, leaseUntil: renewed } : task;
    });
  }

  private command<T>(what: string, run: (redis: RedisClient) => Promise<T>): Promise<T> {
    return within(this.timeoutMs, what, () => run(this.options.redis));
  }

  private taskKey(taskId: string): string {
    return `${this.prefix}toolwright:task:${taskId}`;
  }

  private liveKey(owner: string): string {
    return `${this.prefix}toolwright:tasks-live:${owner}`;
  }

  /** The owner's indexes: by creation, by expiry, and the live ones by lease. */
  private indexKeys(owner: string): [string, string, string] {
    return [
      `${this.prefix}toolwright:tasks-of:${owner}`,
      `${this.prefix}toolwright:tasks-expiring:${owner}`,
      this.liveKey(owner),
    ];
  }
}
