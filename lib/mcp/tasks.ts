import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ToolAsk, ToolQuestion } from '../core/asking.js';
import { attempt, detachedListener, type DetachedFailure } from '../core/detached.js';
import { ToolsConfigurationError } from '../core/errors.js';
import type { ToolLogger } from '../core/hooks.js';
import type { InstanceBus } from '../core/instance-bus.js';
import {
  InMemoryTaskStore,
  isTerminal,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../core/task-store.js';
import { TaskExecution, type TaskExecutionSettings, type TaskRun } from './task-execution.js';
import { waitUntil } from './wait-until.js';
import { MCP_MESSAGES } from './mcp.messages.js';

export type { TaskChange, TaskOutcome, TaskRun } from './task-execution.js';

/**
 * How the endpoint keeps MCP tasks (the calls of tools that declare `task`): where, for how
 * long, how often clients should poll, how long an instance vouches for a task it runs, and
 * how much one caller may hold (live tasks, time, result size).
 */
export interface McpTaskOptions {
  /** Where tasks live: shared by every instance. @default an in-memory store (one instance) */
  store?: TaskStore;
  /**
   * How long a task and its result are kept from its creation, unless a 2025-era client asks
   * for another time (cut to `maxTtlMs`). @default 3_600_000 (1 h)
   */
  ttlMs?: number;
  /**
   * The most a 2025-era client may ask for: a longer time is cut to it (the task's `ttl` says
   * so). @default the larger of `ttlMs` and 3_600_000 (1 h)
   */
  maxTtlMs?: number;
  /** The polling interval clients are told. @default 1_000 */
  pollIntervalMs?: number;
  /**
   * How long the instance running a task vouches for it without renewing; a task whose instance
   * stopped is `failed` this long after its last renewal. @default 30_000
   */
  leaseMs?: number;
  /**
   * How many live tasks (working, or waiting for input) one caller may have at a time, on all
   * instances together: one more is refused with `-32602` until one of them ends. @default 10
   */
  maxLiveTasks?: number;
  /**
   * The largest result a task keeps, in bytes of its JSON: a larger one fails the task with
   * `-32603` ("The task's result is too large to keep") instead of being stored.
   * @default 1_048_576 (1 MiB)
   */
  maxResultBytes?: number;
}

/** What crosses instances about tasks: a cancellation, an end, answers to its questions. */
type TaskMessage =
  | { readonly kind: 'cancel' | 'done'; readonly taskId: string }
  | {
      readonly kind: 'input';
      readonly taskId: string;
      readonly responses: Readonly<Record<string, unknown>>;
    };

const CHANNEL = 'toolwright:mcp:tasks';
const STOPPED = 'The instance running the task stopped before it finished.';

/**
 * The MCP tasks of an endpoint, whatever the era that serves them: a task is stored before its
 * handle is answered, runs here through the canonical runner (the surface's `run`) as a
 * {@link TaskExecution}, and ends once in the store (a terminal task never changes). Any
 * instance answers for any task of the store; only the caller that created a task sees it, and
 * another is told no such task exists. Cancelling reaches the instance running it over the bus.
 */
export class McpTasks {
  private readonly store: TaskStore;
  private readonly ttlMs: number;
  private readonly maxTtlMs: number;
  private readonly pollIntervalMs: number;
  private readonly maxLiveTasks: number;
  /** What each task running here is run with. */
  private readonly settings: TaskExecutionSettings;
  /** The tasks running here, by id. */
  private readonly running = new Map<string, TaskExecution>();
  /** Who waits for a task to end (`tasks/result`), by id. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The tasks running here, until each has stored how it ended. */
  private readonly executions = new Set<Promise<unknown>>();

  constructor(
    options: McpTaskOptions,
    private readonly bus: InstanceBus,
    private readonly logger: Pick<ToolLogger, 'error'>,
  ) {
    this.store = options.store ?? new InMemoryTaskStore();
    this.ttlMs = whole(options.ttlMs ?? 3_600_000, 'ttlMs');
    this.maxTtlMs = whole(options.maxTtlMs ?? Math.max(this.ttlMs, 3_600_000), 'maxTtlMs');
    if (this.ttlMs > this.maxTtlMs) {
      throw new ToolsConfigurationError(MCP_MESSAGES.taskTtlAboveMax(this.ttlMs, this.maxTtlMs));
    }
    this.pollIntervalMs = whole(options.pollIntervalMs ?? 1_000, 'pollIntervalMs');
    this.maxLiveTasks = whole(options.maxLiveTasks ?? 10, 'maxLiveTasks', null);
    this.settings = {
      store: this.store,
      leaseMs: whole(options.leaseMs ?? 30_000, 'leaseMs'),
      maxResultBytes: whole(options.maxResultBytes ?? 1_048_576, 'maxResultBytes', 'bytes'),
      logger,
    };
  }

  /**
   * Starts hearing cancellations, ends and answers from other instances; resolves to the
   * function that stops. A message that is not one of them is logged and dropped.
   */
  listen(): Promise<() => Promise<void>> {
    return this.bus.subscribe(
      CHANNEL,
      detachedListener(
        (text: string) => this.hear(text),
        this.failed('[toolwright] MCP: a task message from the bus could not be read:'),
      ),
    );
  }

  /**
   * Creates a task for the caller and starts `run` for it in this process; resolves to the
   * task once it is stored (any instance can read it then). `run` gets the task, its signal
   * (aborted when the task is cancelled) and a function that sets its status message. Rejects
   * with `-32602` for a ttl that is not a positive number, and for a caller who has
   * `maxLiveTasks` live tasks already; a ttl longer than `maxTtlMs` is cut to it.
   */
  async start(
    owner: string,
    name: string,
    requestedTtlMs: unknown,
    meta: Readonly<Record<string, unknown>>,
    run: TaskRun,
  ): Promise<TaskRecord> {
    const now = Date.now();
    const task: TaskRecord = {
      taskId: randomBytes(24).toString('base64url'),
      owner,
      name,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlOf(requestedTtlMs),
      pollIntervalMs: this.pollIntervalMs,
      leaseUntil: now + this.settings.leaseMs,
      meta,
    };
    const maxLive = this.maxLiveTasks;
    if (!(await this.reach(() => this.store.create(task, { maxLive })))) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Too many tasks: this caller has ${maxLive} tasks running already, the most it may ` +
          'have. Wait for one to end, or cancel one, then call again.',
        { reason: 'too_many_tasks', maxLiveTasks: maxLive },
      );
    }
    this.execute(task, run);
    return task;
  }

  /** The caller's task, failed first if its instance stopped vouching for it; else `undefined`. */
  async get(owner: string, taskId: unknown): Promise<TaskRecord | undefined> {
    if (typeof taskId !== 'string') return undefined;
    const task = await this.reach(() => this.store.get(taskId));
    if (!task || task.owner !== owner) return undefined;
    return this.current(task);
  }

  /**
   * Cancels the caller's task: stored `cancelled` (unless it ended first), and the instance
   * running it aborts the handler's signal. Resolves to the task as it stands, and whether
   * this cancelled it (not when it was terminal already); rejects with the JSON-RPC `-32602`
   * for a task it cannot find.
   */
  async cancel(owner: string, taskId: unknown): Promise<{ task: TaskRecord; cancelled: boolean }> {
    const task = await this.get(owner, taskId);
    if (!task) throw notFound();
    if (isTerminal(task.status)) return { task, cancelled: false };
    const cancelled: TaskRecord = {
      ...task,
      status: 'cancelled',
      statusMessage: 'The task was cancelled by request.',
      lastUpdatedAt: Date.now(),
    };
    if (!(await this.reach(() => this.store.update(cancelled)))) {
      const now = await this.reach(() => this.store.get(task.taskId));
      return { task: now ?? task, cancelled: false };
    }
    this.running.get(task.taskId)?.abort(cancelledReason());
    await this.announce({ kind: 'cancel', taskId: task.taskId });
    return { task: cancelled, cancelled: true };
  }

  /**
   * Passes a client's answers to the questions of its task (2026-07-28 `tasks/update`) to the
   * instance running it. Answers to keys the task is not waiting on are ignored there. Rejects
   * with `-32602` for a task the caller cannot see.
   */
  async answer(owner: string, taskId: unknown, responses: Record<string, unknown>): Promise<void> {
    const task = await this.get(owner, taskId);
    if (!task) throw notFound();
    this.running.get(task.taskId)?.deliver(responses);
    await this.announce({ kind: 'input', taskId: task.taskId, responses });
  }

  /**
   * How a task running here asks its client (see {@link TaskExecution.asker}): the question
   * becomes the task's `inputRequests`, and the answer arrives through {@link answer} on any
   * instance.
   */
  asker(task: TaskRecord, request: (question: ToolQuestion) => Record<string, unknown>): ToolAsk {
    const execution = this.running.get(task.taskId);
    if (!execution) throw new Error(`MCP task ${task.taskId} does not run on this instance.`);
    return execution.asker(request);
  }

  /**
   * Waits until the caller's task is terminal and resolves to it; rejects with `-32602` for a
   * task it cannot find, and with the signal's reason when the request goes. Woken by the
   * instance that ends it, and looks again every poll interval (a task whose instance stopped
   * is failed when its lease runs out).
   */
  async settled(owner: string, taskId: unknown, signal: AbortSignal): Promise<TaskRecord> {
    for (;;) {
      const task = await this.get(owner, taskId);
      if (!task) throw notFound();
      if (isTerminal(task.status)) return task;
      await this.nextLook(task.taskId, signal);
    }
  }

  /** A page of the caller's tasks, newest first; `-32602` for a cursor the store did not give. */
  async list(
    owner: string,
    cursor: unknown,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidCursor();
    const page = await this.reach(() =>
      this.store.list(owner, {
        ...(cursor !== undefined && { cursor }),
        limit: 50,
      }),
    );
    if (!page) throw invalidCursor();
    const tasks = await Promise.all(
      page.tasks.map(async (task) => (await this.current(task)) ?? task),
    );
    return { tasks, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
  }

  /**
   * Resolves once every task running here has stored how it ended, or after `ms`, whichever
   * comes first (a shutdown: the invoker has drained the calls, their ends are being written).
   */
  async idle(ms: number): Promise<void> {
    if (this.executions.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.executions]),
      new Promise((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }

  /**
   * A task as read, failed first (and for good) if the instance running it stopped vouching
   * for it: its lease ran out, and it does not run here. `undefined` when it is gone meanwhile.
   */
  private async current(task: TaskRecord): Promise<TaskRecord | undefined> {
    // Running here: this instance is alive whatever its last renewal says.
    if (isTerminal(task.status) || task.leaseUntil > Date.now() || this.running.has(task.taskId)) {
      return task;
    }
    const failed: TaskRecord = {
      ...task,
      status: 'failed',
      statusMessage: STOPPED,
      lastUpdatedAt: Date.now(),
      error: { code: ProtocolErrorCode.InternalError, message: STOPPED },
    };
    if (await this.reach(() => this.store.update(failed))) return failed;
    return this.reach(() => this.store.get(task.taskId));
  }

  /**
   * A store operation for a request: a store that cannot answer (Redis away, say) is logged,
   * and the request gets a JSON-RPC `-32603` that says to retry.
   */
  private async reach<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      this.logger.error('[toolwright] MCP: the task store did not answer:', error);
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        'The task store could not be reached; retry the request.',
      );
    }
  }

  /** Runs a stored task here as a {@link TaskExecution}, then tells the waiters it ended. */
  private execute(task: TaskRecord, run: TaskRun): void {
    const execution = new TaskExecution(task, this.settings);
    this.running.set(task.taskId, execution);
    // The callback is async, so `attempt` returns its promise: one that never rejects.
    const ended = attempt(
      async () => {
        try {
          await execution.run(run);
        } finally {
          this.running.delete(task.taskId);
        }
        await this.announce({ kind: 'done', taskId: task.taskId });
      },
      this.failed(`[toolwright] MCP task ${task.taskId} could not end:`),
    )!;
    this.executions.add(ended);
    void ended.then(() => this.executions.delete(ended));
  }

  /** A message from the bus: a cancellation, answers, or an end (which wakes the waiters). */
  private hear(text: string): void {
    const message = JSON.parse(text) as TaskMessage;
    if (message.kind === 'cancel') this.running.get(message.taskId)?.abort(cancelledReason());
    else if (message.kind === 'input') this.running.get(message.taskId)?.deliver(message.responses);
    else this.wake(message.taskId);
  }

  /** Tells every instance (this one included): its listeners wake or abort. Logged when it cannot. */
  private async announce(message: TaskMessage): Promise<void> {
    this.wake(message.taskId);
    await attempt(
      () => this.bus.publish(CHANNEL, JSON.stringify(message)),
      this.failed(
        `[toolwright] MCP task ${message.taskId}: the bus did not take a ${message.kind}:`,
      ),
    );
  }

  private wake(taskId: string): void {
    for (const waiter of [...(this.waiters.get(taskId) ?? [])]) waiter();
  }

  /** Resolves when the task may have moved on (woken, or the poll interval passed); rejects on `signal`. */
  private nextLook(taskId: string, signal: AbortSignal): Promise<void> {
    return waitUntil<void>(
      signal,
      (settle) => {
        const timer = setTimeout(settle, this.pollIntervalMs);
        let waiters = this.waiters.get(taskId);
        if (!waiters) this.waiters.set(taskId, (waiters = new Set()));
        const own = waiters;
        own.add(settle);
        return () => {
          clearTimeout(timer);
          own.delete(settle);
          if (own.size === 0 && this.waiters.get(taskId) === own) this.waiters.delete(taskId);
        };
      },
      this.failed(`[toolwright] MCP task ${taskId}: a wait for its end failed:`),
    );
  }

  /** The time a 2025-era client asks for, cut to `maxTtlMs`; `ttlMs` when it asks for none. */
  private ttlOf(requested: unknown): number {
    if (requested === undefined) return this.ttlMs;
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested <= 0) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid task.ttl: expected a positive number of milliseconds, got ${JSON.stringify(requested)}.`,
      );
    }
    return Math.min(Math.ceil(requested), this.maxTtlMs);
  }

  /** Where a failure that has no request to go to is logged, after `context`. */
  private failed(context: string): DetachedFailure {
    return (error) => this.logger.error(context, error);
  }
}

/** The task fields both eras share, for a wire task (`ttl`/`pollInterval` on 2025, `…Ms` on 2026). */
export function taskTimes(task: TaskRecord): {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
} {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
  };
}

/** The `-32602` for a task id that names no task of the caller's. */
export function notFound(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'Failed to retrieve task: Task not found',
  );
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
}

function cancelledReason(): Error {
  const reason = new Error('The task was cancelled.');
  reason.name = 'AbortError';
  return reason;
}

/**
 * An option that must be a positive whole number (the 2026-07-28 revision sends times as
 * integers); throws when the endpoint is made.
 */
function whole(value: number, name: string, unit: string | null = 'milliseconds'): number {
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new ToolsConfigurationError(MCP_MESSAGES.taskNumber(name, value, unit));
  }
  return value;
}
