/** Where a task stands. `completed`, `failed` and `cancelled` are terminal: they never change. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether a task in this status is done for good. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * A long-running call as the store keeps it: JSON, the same on every instance. Times are epoch
 * milliseconds.
 */
export interface TaskRecord {
  /** Unguessable: whoever knows it could poll the task, were it not also bound to its owner. */
  readonly taskId: string;
  /** Who created it (a digest of the caller); another caller is told no such task exists. */
  readonly owner: string;
  /** The tool it runs. */
  readonly name: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long the task is kept from its creation; then it is gone, result and all. */
  readonly ttlMs: number;
  /** How often a client should poll. */
  readonly pollIntervalMs: number;
  /**
   * Until when the instance running it vouches for it (it renews this while it runs). A task
   * not done past its lease is failed by whoever reads it: no task says `working` for ever.
   */
  readonly leaseUntil: number;
  /** What the call answered, once `completed`. */
  readonly result?: unknown;
  /** The JSON-RPC error it ended with, once `failed`. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** The questions it waits on, once `input_required`: the protocol's requests, by key. */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  /** What the surface that created it needs to answer for it (the protocol era, say). */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/**
 * Where tasks live, shared by every instance that answers for them: an in-memory one for a
 * single process ({@link InMemoryTaskStore}, the default), `RedisTaskStore` from
 * `toolwright/redis` for several. An implementation keeps each task for its `ttlMs` from
 * creation, never changes a terminal task, and settles every promise within a bounded time.
 *
 * A task's lease is kept apart from the rest of it: {@link TaskStore.renew} moves the lease
 * alone, so that a renewal and a status write in flight at the same time never undo each
 * other, and no write moves a lease back.
 *
 * @example
 * const redis = new Redis(process.env.REDIS_URL!);
 * redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
 * ToolsModule.forRoot({ registry, mcp: { tasks: { store: new RedisTaskStore({ redis }) } } });
 */
export interface TaskStore {
  /**
   * Keeps a new task, unless its owner has `maxLive` live tasks already (neither terminal nor
   * past their lease); resolves to whether it did, once every instance can read it. The count
   * and the write are one step: instances creating tasks for one owner at the same time never
   * pass the limit together.
   */
  create(task: TaskRecord, limits: { readonly maxLive: number }): Promise<boolean>;
  /** The task, unless its time is up or it never existed. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Replaces a task that is not terminal with `next` (the same task, moved on), its lease
   * excepted (see {@link renew}). Resolves to whether it did: `false` when the task is terminal,
   * gone, or never existed.
   */
  update(next: TaskRecord): Promise<boolean>;
  /**
   * Moves the lease of a task that is not terminal on to `leaseUntil` (a lease renewed further
   * already stays), and nothing else. Resolves to whether the task is still there to renew:
   * `false` when it is terminal, gone, or never existed.
   */
  renew(task: TaskRecord, leaseUntil: number): Promise<boolean>;
  /**
   * An owner's tasks still kept, newest first, `limit` at a time; `cursor` is the
   * `nextCursor` of the page before. `undefined` for a cursor this store did not give.
   */
  list(
    owner: string,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined>;
}

/**
 * The {@link TaskStore} of a single process: tasks in memory, each dropped when its time is up.
 *
 * @example
 * const store = new InMemoryTaskStore();
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Each owner's task ids, oldest first. */
  private readonly owners = new Map<string, Set<string>>();
  /**
   * Each owner's tasks that are not terminal: what counts against `maxLive` is read from these
   * alone, not from every ended task an owner's list still keeps until its time is up.
   */
  private readonly unfinished = new Map<string, Set<string>>();
  private nextSweep = 0;

  create(task: TaskRecord, { maxLive }: { readonly maxLive: number }): Promise<boolean> {
    this.sweep();
    if (this.liveCount(task.owner) >= maxLive) return Promise.resolve(false);
    this.tasks.set(task.taskId, task);
    addTo(this.owners, task.owner, task.taskId);
    if (!isTerminal(task.status)) addTo(this.unfinished, task.owner, task.taskId);
    return Promise.resolve(true);
  }

  get(taskId: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.live(taskId));
  }

  update(next: TaskRecord): Promise<boolean> {
    const current = this.live(next.taskId);
    if (!current || isTerminal(current.status)) return Promise.resolve(false);
    this.tasks.set(next.taskId, {
      ...next,
      leaseUntil: Math.max(current.leaseUntil, next.leaseUntil),
    });
    if (isTerminal(next.status)) removeFrom(this.unfinished, current.owner, next.taskId);
    return Promise.resolve(true);
  }

  renew(task: TaskRecord, leaseUntil: number): Promise<boolean> {
    const current = this.live(task.taskId);
    if (!current || isTerminal(current.status)) return Promise.resolve(false);
    if (leaseUntil > current.leaseUntil) this.tasks.set(task.taskId, { ...current, leaseUntil });
    return Promise.resolve(true);
  }

  list(
    owner: string,
    { cursor, limit }: { cursor?: string; limit: number },
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined> {
    const ids = [...(this.owners.get(owner) ?? [])].reverse();
    const after = cursor === undefined ? -1 : ids.indexOf(cursor);
    if (cursor !== undefined && after < 0) return Promise.resolve(undefined);
    const start = after + 1;
    const tasks: TaskRecord[] = [];
    let index = start;
    for (; index < ids.length && tasks.length < limit; index++) {
      const task = this.live(ids[index]);
      if (task) tasks.push(task);
    }
    const more = ids.slice(index).some((id) => this.live(id));
    return Promise.resolve({ tasks, ...(more && { nextCursor: tasks.at(-1)!.taskId }) });
  }

  /** How many of an owner's tasks are live: kept, not terminal, and within their lease. */
  private liveCount(owner: string): number {
    const now = Date.now();
    let live = 0;
    for (const taskId of this.unfinished.get(owner) ?? []) {
      const task = this.live(taskId);
      if (task && !isTerminal(task.status) && task.leaseUntil > now) live++;
    }
    return live;
  }

  /** The task if it is still kept; one whose time is up is dropped. */
  private live(taskId: string): TaskRecord | undefined {
    const task = this.tasks.get(taskId);
    if (!task || task.createdAt + task.ttlMs > Date.now()) return task;
    this.drop(task);
    return undefined;
  }

  private drop(task: TaskRecord): void {
    this.tasks.delete(task.taskId);
    removeFrom(this.owners, task.owner, task.taskId);
    removeFrom(this.unfinished, task.owner, task.taskId);
  }

  /**
   * Drops every task whose time is up, at most once a second (on creation, so the map never
   * grows without bound).
   */
  private sweep(): void {
    const now = Date.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + 1_000;
    for (const task of this.tasks.values()) {
      if (task.createdAt + task.ttlMs <= now) this.drop(task);
    }
  }
}

/** Adds `id` to the set `sets` holds under `key`, making the set when it is the first. */
function addTo(sets: Map<string, Set<string>>, key: string, id: string): void {
  let set = sets.get(key);
  if (!set) sets.set(key, (set = new Set()));
  set.add(id);
}

/** Removes `id` from the set under `key`, and the set once it is empty. */
function removeFrom(sets: Map<string, Set<string>>, key: string, id: string): void {
  const set = sets.get(key);
  set?.delete(id);
  if (set?.size === 0) sets.delete(key);
}
