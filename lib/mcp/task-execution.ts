import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ToolAsk, ToolQuestion } from '../core/asking.js';
import {
  attempt,
  awaitedLater,
  detached,
  detachedListener,
  type DetachedFailure,
} from '../core/detached.js';
import type { ToolLogger } from '../core/hooks.js';
import { isTerminal, type TaskRecord, type TaskStore } from '../core/task-store.js';
import { answerOf } from './asking.js';
import { waitUntil } from './wait-until.js';

/** What a task's run ends with: the request's result, or the JSON-RPC error it failed with. */
export type TaskOutcome =
  | { readonly status: 'completed' | 'failed'; readonly result: Record<string, unknown> }
  | { readonly status: 'failed'; readonly error: TaskRecord['error'] & object };

/**
 * A change to a running task: the fields it sets (`undefined` removes one). A change laid over
 * another keeps the later value of each field.
 */
export type TaskChange = Partial<
  Pick<
    TaskRecord,
    'status' | 'statusMessage' | 'lastUpdatedAt' | 'result' | 'error' | 'inputRequests'
  >
>;

/**
 * A task's work, started by `McpTasks.start`: the task, its signal (aborted when it is
 * cancelled), and a function that sets its status message. Its questions go through
 * `McpTasks.asker`.
 */
export type TaskRun = (running: {
  readonly task: TaskRecord;
  readonly signal: AbortSignal;
  readonly report: (message: string) => void;
}) => Promise<TaskOutcome>;

/** What a {@link TaskExecution} needs of the endpoint's tasks. */
export interface TaskExecutionSettings {
  readonly store: TaskStore;
  /** How long this instance vouches for the task without renewing; it renews every third of it. */
  readonly leaseMs: number;
  /** The largest result the task keeps, in bytes of its JSON. */
  readonly maxResultBytes: number;
  readonly logger: Pick<ToolLogger, 'error'>;
}

/**
 * One task running on this instance, from its start until its end is stored: its status
 * writes, its lease, its questions and its cancellation.
 *
 * - **Only the latest status is written.** One write is in flight at a time; the changes made
 *   meanwhile wait as one pending change, each laid over the one before. A handler that reports
 *   progress per row makes a handful of writes, and its end is stored right after it returns.
 * - **The lease is renewed on a timer of its own**, with a write of the lease alone
 *   (`TaskStore.renew`), never behind a status write: a status write that hangs does not let the
 *   lease run out under a task that is alive.
 * - **Its questions** (2026-07-28) wait here for their answers, whichever instance takes them.
 * - **Nothing it starts rejects unseen.** {@link run} and {@link write} never reject: a store
 *   that fails a write or a renewal is logged, and the next write starts from what was stored
 *   last; a timer tick or an answer runs through `detachedListener`; an answer that a call
 *   abandoned already rejects is awaited later (`awaitedLater`), by the handler that asked.
 */
export class TaskExecution {
  private readonly controller = new AbortController();
  /** The task as last stored. */
  private stored: TaskRecord;
  /** The change that waits for the write in flight, and the promise its writers wait on. */
  private pending?: {
    change: TaskChange;
    readonly written: Promise<void>;
    readonly done: () => void;
  };
  private writing = false;
  /** The task's end is on its way: later changes (a stray report) are not written. */
  private ending = false;
  /** The store keeps the task terminal, or has it no more: nothing is written any more. */
  private closed = false;
  private renewing = false;
  /** The questions waiting for their answers, by key. */
  private readonly questions = new Map<string, (response: unknown) => void>();
  private asked = 0;

  constructor(
    readonly task: TaskRecord,
    private readonly settings: TaskExecutionSettings,
  ) {
    this.stored = task;
  }

  /**
   * Runs the task's work, then stores how it ended: its result (a result larger than
   * `maxResultBytes` fails the task with `-32603` instead), or the failure it threw. Renews the
   * lease meanwhile. Resolves once the end is written (or its write failed, logged); never
   * rejects.
   */
  async run(work: TaskRun): Promise<void> {
    const renewal = setInterval(
      detachedListener(() => this.renew(), this.failed('could not renew its lease')),
      Math.max(1, Math.floor(this.settings.leaseMs / 3)),
    );
    renewal.unref?.();
    try {
      const outcome = await this.outcome(work);
      const written = this.write(ending(outcome));
      this.ending = true;
      await written;
    } finally {
      clearInterval(renewal);
    }
  }

  /** Aborts the work's signal (the task was cancelled). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /**
   * Writes a change of the task after the writes before it; while one is in flight, the change
   * joins the pending one. Resolves once a write that carries it is done (refused by a task
   * that ended, or failed: logged); never rejects.
   */
  readonly write = (change: TaskChange): Promise<void> => {
    if (this.ending || this.closed) return Promise.resolve();
    if (this.pending) {
      this.pending.change = { ...this.pending.change, ...change };
      return this.pending.written;
    }
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    this.pending = { change, written, done };
    if (!this.writing) detached(() => this.flush(), this.failed('could not be updated'));
    return written;
  };

  /** Sets the task's status message (its handler's progress). */
  readonly report = (message: string): void => {
    void this.write({ statusMessage: message, lastUpdatedAt: Date.now() });
  };

  /**
   * How the task's handler asks its client (the 2026-07-28 tasks extension): the question
   * becomes the task's `inputRequests` (status `input_required`) under a key never used before
   * in it, and the answer arrives through {@link deliver}. The wait ends with the call's signal.
   */
  asker(request: (question: ToolQuestion) => Record<string, unknown>): ToolAsk {
    return async (question, { signal }) => {
      signal.throwIfAborted();
      const key = `q${this.asked++}`;
      // Made before the write so that no answer is missed, and awaited after it: the call may
      // be abandoned meanwhile, and its rejection is then the handler's, not the process's.
      const answered = awaitedLater(
        waitUntil<unknown>(
          signal,
          (settle) => {
            this.questions.set(key, settle);
            return () => this.questions.delete(key);
          },
          this.failed('could not take an answer'),
        ),
      );
      await this.write({
        status: 'input_required',
        inputRequests: { [key]: request(question) },
        lastUpdatedAt: Date.now(),
      });
      const response = await answered;
      await this.write({ status: 'working', inputRequests: undefined, lastUpdatedAt: Date.now() });
      return answerOf(question, { result: response });
    };
  }

  /** Settles the questions these responses answer; the others are ignored. */
  deliver(responses: Readonly<Record<string, unknown>>): void {
    for (const [key, response] of Object.entries(responses)) this.questions.get(key)?.(response);
  }

  /** How the work ended: its outcome within the limit on results, or the failure it threw. */
  private async outcome(work: TaskRun): Promise<TaskOutcome> {
    try {
      const outcome = await work({
        task: this.task,
        signal: this.controller.signal,
        report: this.report,
      });
      return this.bounded(outcome);
    } catch (error) {
      this.settings.logger.error(`[toolwright] MCP task ${this.task.taskId} failed:`, error);
      return failedWith(error);
    }
  }

  /** The outcome, or the `-32603` failure that stands for a result too large to keep. */
  private bounded(outcome: TaskOutcome): TaskOutcome {
    if (!('result' in outcome)) return outcome;
    const bytes = Buffer.byteLength(JSON.stringify(outcome.result));
    const { maxResultBytes } = this.settings;
    if (bytes <= maxResultBytes) return outcome;
    this.settings.logger.error(
      `[toolwright] MCP task ${this.task.taskId} of "${this.task.name}": its result (${bytes} ` +
        `bytes) is larger than mcp.tasks.maxResultBytes (${maxResultBytes}); the task failed.`,
    );
    return {
      status: 'failed',
      error: {
        code: ProtocolErrorCode.InternalError,
        message: `The task's result is too large to keep: ${bytes} bytes, the most is ${maxResultBytes}.`,
      },
    };
  }

  /** Writes the pending change, and the one pending after it, until none is left. */
  private async flush(): Promise<void> {
    this.writing = true;
    while (this.pending) {
      const { change, done } = this.pending;
      this.pending = undefined;
      await attempt(() => this.store(change), this.failed('could not be updated'));
      done();
    }
    this.writing = false;
  }

  private async store(change: TaskChange): Promise<void> {
    if (this.closed) return;
    const next = applied(this.stored, change);
    const updated = await this.settings.store.update(next);
    if (updated) this.stored = next;
    // Refused: the task ended elsewhere (cancelled) or is gone; a write taken ends it here too.
    if (!updated || isTerminal(next.status)) this.closed = true;
  }

  private async renew(): Promise<void> {
    // A renewal still in flight is enough: renewals never queue up behind a Redis that hangs.
    if (this.renewing || this.closed) return;
    this.renewing = true;
    try {
      const leaseUntil = Date.now() + this.settings.leaseMs;
      if (!(await this.settings.store.renew(this.task, leaseUntil))) this.closed = true;
    } finally {
      this.renewing = false;
    }
  }

  private failed(what: string): DetachedFailure {
    return (error) =>
      this.settings.logger.error(`[toolwright] MCP task ${this.task.taskId} ${what}:`, error);
  }
}

/** The change that ends a task. A JSON-RPC failure says what went wrong in the status message too, as the spec advises. */
function ending(outcome: TaskOutcome): TaskChange {
  return {
    ...outcome,
    ...('error' in outcome && { statusMessage: outcome.error.message }),
    inputRequests: undefined,
    lastUpdatedAt: Date.now(),
  };
}

/** The task with a change laid over it; a field the change sets to `undefined` is removed. */
function applied(task: TaskRecord, change: TaskChange): TaskRecord {
  const next: Record<string, unknown> = { ...task, ...change };
  for (const [field, value] of Object.entries(change)) if (value === undefined) delete next[field];
  return next as unknown as TaskRecord;
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
