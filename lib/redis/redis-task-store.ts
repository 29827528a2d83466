import type { TaskRecord, TaskStore } from '../core/task-store.js';
import { within, type RedisClient } from './redis-client.js';

/** How a {@link RedisTaskStore} reaches Redis. */
export interface RedisTaskStoreOptions {
  /** The application's client (`new Redis(url)` of `ioredis`). */
  redis: RedisClient;
  /** Put before every key, to keep applications that share a Redis apart. @default '' */
  prefix?: string;
  /** How long a command may wait for Redis (while it reconnects, say) before it fails. @default 2000 */
  commandTimeoutMs?: number;
}

// A task is a hash: its status (which the update script compares) and its JSON. It expires
// `ttlMs` after its creation; an update keeps that time.
const CREATE = `
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'json', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1`;

// A terminal task never changes: the check and the write are one atomic step.
const UPDATE = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'json', ARGV[2])
return 1`;

/**
 * The {@link TaskStore} of several instances, in Redis: each task a hash that expires `ttlMs`
 * after its creation, each owner's tasks a sorted set by creation time. Creation is one atomic
 * script, so a task is readable everywhere once `create` resolves; an update is another, which
 * leaves a terminal task as it is. Every command fails after `commandTimeoutMs` rather than
 * wait for a Redis that is away.
 *
 * @example
 * import Redis from 'ioredis';
 * import { RedisTaskStore } from 'toolwright/redis';
 *
 * const store = new RedisTaskStore({ redis: new Redis(process.env.REDIS_URL!) });
 */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: RedisTaskStoreOptions) {
    this.prefix = options.prefix ?? '';
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
  }

  async create(task: TaskRecord): Promise<void> {
    await this.command('an EVAL (create)', (redis) =>
      redis.eval(
        CREATE,
        2,
        this.taskKey(task.taskId),
        this.ownerKey(task.owner),
        task.status,
        JSON.stringify(task),
        Math.max(1, Math.ceil(task.ttlMs)),
        task.createdAt,
        task.taskId,
      ),
    );
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const json = await this.command('an HGET', (redis) => redis.hget(this.taskKey(taskId), 'json'));
    return json === null ? undefined : (JSON.parse(json) as TaskRecord);
  }

  async update(next: TaskRecord): Promise<boolean> {
    const updated = await this.command('an EVAL (update)', (redis) =>
      redis.eval(UPDATE, 1, this.taskKey(next.taskId), next.status, JSON.stringify(next)),
    );
    return updated === 1;
  }

  async list(
    owner: string,
    { cursor, limit }: { cursor?: string; limit: number },
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined> {
    const key = this.ownerKey(owner);
    let start = 0;
    if (cursor !== undefined) {
      const rank = await this.command('a ZREVRANK', (redis) => redis.zrevrank(key, cursor));
      if (rank === null) return undefined;
      start = rank + 1;
    }
    const tasks: TaskRecord[] = [];
    // Expired tasks leave their id in the owner's set: skip them, and drop them, as they come.
    for (;;) {
      // One id more than the page still needs, to tell whether another page follows.
      const ids = await this.command('a ZREVRANGE', (redis) =>
        redis.zrevrange(key, start, start + limit - tasks.length),
      );
      if (ids.length === 0) return { tasks };
      let dropped = 0;
      for (const id of ids) {
        if (tasks.length === limit) return { tasks, nextCursor: tasks.at(-1)!.taskId };
        const task = await this.get(id);
        if (task) {
          tasks.push(task);
        } else {
          await this.command('a ZREM', (redis) => redis.zrem(key, id));
          dropped++;
        }
      }
      start += ids.length - dropped;
    }
  }

  private command<T>(what: string, run: (redis: RedisClient) => Promise<T>): Promise<T> {
    return within(this.timeoutMs, what, () => run(this.options.redis));
  }

  private taskKey(taskId: string): string {
    return `${this.prefix}toolwright:task:${taskId}`;
  }

  private ownerKey(owner: string): string {
    return `${this.prefix}toolwright:tasks-of:${owner}`;
  }
}
