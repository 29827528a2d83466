import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ToolAsk, ToolQuestion } from '../core/asking.js';
import type { ToolLogger } from '../core/hooks.js';
import { answerOf } from './legacy-elicitation.js';
import type { InstanceBus } from '../core/instance-bus.js';
import {
  InMemoryTaskStore,
  isTerminal,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../core/task-store.js';

/**
 * How the endpoint keeps MCP tasks (the calls of tools that declare `task`): where, for how
 * long, how often clients should poll, and how long an instance vouches for a task it runs.
 *
 * @example
 * ToolsModule.forRoot({ mcp: { tasks: { store: new RedisTaskStore({ redis }), ttlMs: 3_600_000 } } })
 */
export interface McpTaskOptions {
  /** Where tasks live: shared by every instance. @default an in-memory store (one instance) */
  store?: TaskStore;
  /**
   * How long a task and its result are kept from its creation, unless a 2025-era client asks
   * for another time (cut to `maxTtlMs`). @default 3_600_000 (1 h)
   */
  ttlMs?: number;
  /** The most a 2025-era client may ask for. @default 86_400_000 (24 h) */
  maxTtlMs?: number;
  /** The polling interval clients are told. @default 1_000 */
  pollIntervalMs?: number;
  /**
   * How long the instance running a task vouches for it without renewing; a task whose instance
   * stopped is `failed` this long after its last renewal. @default 30_000
   */
  leaseMs?: number;
}

/** What a task's run ends with: the request's result, or the JSON-RPC error it failed with. */
export type TaskOutcome =
  | { readonly status: 'completed' | 'failed'; readonly result: Record<string, unknown> }
  | { readonly status: 'failed'; readonly error: TaskRecord['error'] & object };

/**
 * A task's work, started by {@link McpTasks.start}: the task, its signal (aborted when it is
 * cancelled), a function that sets its status message, and its writer (one write at a time,
 * never over a terminal task), for {@link McpTasks.asker}.
 */
export type TaskRun = (running: {
  readonly task: TaskRecord;
  readonly signal: AbortSignal;
  readonly report: (message: string) => void;
  readonly write: (next: (current: TaskRecord) => TaskRecord) => Promise<unknown>;
}) => Promise<TaskOutcome>;

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
 * handle is answered, runs here through the canonical runner (the surface's `run`), renews its
 * lease while it runs, and ends once in the store (a terminal task never changes). Any
 * instance answers for any task of the store; only the caller that created a task sees it, and
 * another is told no such task exists. Cancelling reaches the instance running it over the bus.
 */
export class McpTasks {
  private readonly store: TaskStore;
  private readonly ttlMs: number;
  private readonly maxTtlMs: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  /** The tasks running here, by id. */
  private readonly running = new Map<string, AbortController>();
  /** Who waits for a task to end (`tasks/result`), by id. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The tasks running here, until each has stored how it ended. */
  private readonly executions = new Set<Promise<unknown>>();
  /** The questions of the tasks running here, waiting for their answers: by task id and key. */
  private readonly questions = new Map<string, (response: unknown) => void>();

  constructor(
    options: McpTaskOptions,
    private readonly bus: InstanceBus,
    private readonly logger: Pick<ToolLogger, 'error'>,
  ) {
    this.store = options.store ?? new InMemoryTaskStore();
    this.ttlMs = positive(options.ttlMs ?? 3_600_000, 'ttlMs');
    this.maxTtlMs = positive(options.maxTtlMs ?? 86_400_000, 'maxTtlMs');
    this.pollIntervalMs = positive(options.pollIntervalMs ?? 1_000, 'pollIntervalMs');
    this.leaseMs = positive(options.leaseMs ?? 30_000, 'leaseMs');
  }

  /** Starts hearing cancellations and ends from other instances; resolves to the function that stops. */
  listen(): Promise<() => Promise<void>> {
    return this.bus.subscribe(CHANNEL, (text) => {
      const message = JSON.parse(text) as TaskMessage;
      if (message.kind === 'cancel') this.running.get(message.taskId)?.abort(cancelledReason());
      else if (message.kind === 'input') this.deliver(message.taskId, message.responses);
      else this.wake(message.taskId);
    });
  }

  /**
   * Creates a task for the caller and starts `run` for it in this process; resolves to the
   * task once it is stored (any instance can read it then). `run` gets the task, its signal
   * (aborted when the task is cancelled) and a function that sets its status message.
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
      leaseUntil: now + this.leaseMs,
      meta,
    };
    await this.reach(() => this.store.create(task));
    this.execute(task, run);
    return task;
  }

  /** The caller's task, failed first if its instance stopped vouching for it; else `undefined`. */
  async get(owner: string, taskId: unknown): Promise<TaskRecord | undefined> {
    if (typeof taskId !== 'string') return undefined;
    const task = await this.reach(() => this.store.get(taskId));
    if (!task || task.owner !== owner) return undefined;
    // Running here: this instance is alive whatever its last renewal says.
    if (isTerminal(task.status) || task.leaseUntil > Date.now() || this.running.has(taskId)) {
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
    return this.reach(() => this.store.get(taskId));
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
    this.deliver(task.taskId, responses);
    await this.announce({ kind: 'input', taskId: task.taskId, responses });
  }

  /**
   * How a task running here asks its client: the question becomes the task's `inputRequests`
   * (status `input_required`) under a key never used before in it, and the answer arrives
   * through {@link answer} on any instance. The wait ends with the task's signal.
   */
  asker(
    task: TaskRecord,
    request: (question: ToolQuestion) => Record<string, unknown>,
    write: (next: (current: TaskRecord) => TaskRecord) => Promise<unknown>,
  ): ToolAsk {
    let asked = 0;
    return async (question, { signal }) => {
      const key = `q${asked++}`;
      const slot = questionSlot(task.taskId, key);
      const answered = until<unknown>(signal, (settle) => {
        this.questions.set(slot, settle);
        return () => this.questions.delete(slot);
      });
      await write((current) => ({
        ...current,
        status: 'input_required',
        inputRequests: { [key]: request(question) },
        lastUpdatedAt: Date.now(),
      }));
      const response = await answered;
      await write(({ inputRequests: _answered, ...current }) => ({
        ...current,
        status: 'working',
        lastUpdatedAt: Date.now(),
      }));
      return answerOf(question, { result: response });
    };
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
      page.tasks.map((task) => this.get(owner, task.taskId).then((current) => current ?? task)),
    );
    return { tasks, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) };
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

  /** Runs a stored task here: renews its lease while it runs, stores how it ended, tells waiters. */
  private execute(task: TaskRecord, run: TaskRun): void {
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    let latest = task;
    // One write at a time: a report or renewal while one is in flight is written after it.
    let writing: Promise<unknown> = Promise.resolve();
    const write = (next: (current: TaskRecord) => TaskRecord) => {
      writing = writing.then(async () => {
        const candidate = next(latest);
        if (await this.store.update(candidate)) latest = candidate;
      });
      writing = writing.catch((error: unknown) =>
        this.logger.error(`[toolwright] MCP task ${task.taskId} could not be updated:`, error),
      );
      return writing;
    };
    const renew = setInterval(
      () => void write((current) => ({ ...current, leaseUntil: Date.now() + this.leaseMs })),
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    renew.unref?.();
    const report = (message: string) =>
      void write((current) => ({ ...current, statusMessage: message, lastUpdatedAt: Date.now() }));
    // A JSON-RPC failure says what went wrong in the status message too, as the spec advises.
    const ended = (outcome: TaskOutcome) =>
      write((current) => ({
        ...current,
        ...outcome,
        ...('error' in outcome && outcome.error && { statusMessage: outcome.error.message }),
        lastUpdatedAt: Date.now(),
      }));
    const execution = run({ task, signal: controller.signal, report, write })
      .catch((error: unknown): TaskOutcome => {
        this.logger.error(`[toolwright] MCP task ${task.taskId} failed:`, error);
        return failedWith(error);
      })
      .then(ended)
      .finally(() => {
        clearInterval(renew);
        this.running.delete(task.taskId);
        return this.announce({ kind: 'done', taskId: task.taskId });
      })
      .catch(() => undefined)
      .finally(() => this.executions.delete(execution));
    this.executions.add(execution);
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

  /** Tells every instance (this one included): its listeners wake or abort. Logged when it cannot. */
  private async announce(message: TaskMessage): Promise<void> {
    this.wake(message.taskId);
    try {
      await this.bus.publish(CHANNEL, JSON.stringify(message));
    } catch (error) {
      this.logger.error(
        `[toolwright] MCP task ${message.taskId}: the bus did not take a ${message.kind}:`,
        error,
      );
    }
  }

  /** Settles the questions of a task running here that these responses answer. */
  private deliver(taskId: string, responses: Readonly<Record<string, unknown>>): void {
    for (const [key, response] of Object.entries(responses)) {
      this.questions.get(questionSlot(taskId, key))?.(response);
    }
  }

  private wake(taskId: string): void {
    for (const waiter of [...(this.waiters.get(taskId) ?? [])]) waiter();
  }

  /** Resolves when the task may have moved on (woken, or the poll interval passed); rejects on `signal`. */
  private nextLook(taskId: string, signal: AbortSignal): Promise<void> {
    return until<void>(signal, (settle) => {
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
    });
  }

  private ttlOf(requested: unknown): number {
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested <= 0) {
      return this.ttlMs;
    }
    return Math.min(Math.ceil(requested), this.maxTtlMs);
  }
}

/** Where a question of a task waits for its answer. */
function questionSlot(taskId: string, key: string): string {
  return `${taskId}\u0000${key}`;
}

/**
 * Waits until `subscribe`'s `settle` is called, or rejects with the signal's reason when it
 * aborts first. Every way out runs the unsubscribe `subscribe` returned and drops the listener.
 */
function until<T>(
  signal: AbortSignal,
  subscribe: (settle: (value: T) => void) => () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const end = () => {
      unsubscribe();
      signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      end();
      reject(signal.reason);
    };
    const unsubscribe = subscribe((value) => {
      end();
      resolve(value);
    });
    signal.addEventListener('abort', aborted, { once: true });
  });
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

/** The 2025-11-25 `-32602` for cancelling a task that ended already. */
export function alreadyTerminal(status: TaskStatus): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Cannot cancel task: already in terminal status '${status}'`,
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

/** A run that threw: the JSON-RPC error, the SDK's own words for what is not one. */
function failedWith(error: unknown): TaskOutcome {
  if (error instanceof ProtocolError) {
    return {
      status: 'failed',
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined && { data: error.data }),
      },
    };
  }
  return {
    status: 'failed',
    error: { code: ProtocolErrorCode.InternalError, message: 'Internal error' },
  };
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new Error(`mcp.tasks.${name} must be a positive number of milliseconds, got ${value}.`);
  }
  return value;
}
