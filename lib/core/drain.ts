import { ToolError } from './errors.js';

/** The error of a call refused, or cut short, because its invoker is shutting down. */
export function shuttingDown(): ToolError {
  return new ToolError('SERVICE_UNAVAILABLE', {
    message: 'The application is shutting down; retry the call.',
  });
}

/**
 * One piece of running work. The drain links the work itself to the work that entered before
 * and after it, so that tracking a call allocates nothing.
 */
export interface RunningWork {
  /** Told to stop when the grace period ends; work that stops on its own has none. */
  abort?(reason: ToolError): void;
  older?: RunningWork;
  newer?: RunningWork;
}

/** How a drain went: the work running when it started, and what the grace period cut off. */
export interface DrainReport {
  /** Pieces of work running when the drain started. */
  readonly inFlight: number;
  /** Pieces of work still running when the grace period ran out, then aborted (0: all finished). */
  readonly cutOff: number;
  /** The grace period the running work had. */
  readonly graceMs: number;
}

/**
 * A drain under way: settles once it is over; tells at once (`inFlight`) how much work was
 * running when it started, and (`report`) how it went once it is over.
 */
export type DrainClosing = Promise<void> & {
  readonly inFlight: number;
  readonly report: Promise<DrainReport>;
};

/**
 * Running work — an invoker's calls, an MCP endpoint's answers — that a shutdown drains: it
 * refuses new work, lets running work finish within a grace period, then aborts what is left.
 */
export class Drain {
  closing = false;
  // A linked list rather than a Set, so that entering and leaving hash no object per call.
  private newest?: RunningWork;
  /** How many pieces of work are in the list. */
  private running = 0;
  private idle?: () => void;
  private closed?: DrainClosing;

  /** Work starts (one piece of work enters once); hand what this returns to `leave`, on every path. */
  enter(work: RunningWork = {}): RunningWork {
    work.older = this.newest;
    work.newer = undefined;
    if (this.newest) this.newest.newer = work;
    this.newest = work;
    this.running++;
    return work;
  }

  /** Work is over. Leaving twice is harmless. */
  leave(entry: RunningWork): void {
    if (entry.newer) entry.newer.older = entry.older;
    else if (this.newest === entry) this.newest = entry.older;
    else return; // already left
    if (entry.older) entry.older.newer = entry.newer;
    entry.older = entry.newer = undefined;
    this.running--;
    if (!this.newest) this.idle?.();
  }

  /** How many pieces of work are running now. */
  get size(): number {
    return this.running;
  }

  /**
   * Refuses new work, waits up to `graceMs` for running work, then aborts what is left. Closing
   * again (the MCP endpoint waits for the same drain) joins the first close.
   */
  close(graceMs: number): DrainClosing {
    if (!this.closed) {
      const inFlight = this.running;
      const report = this.drain(graceMs, inFlight);
      this.closed = Object.assign(
        report.then(() => undefined),
        { inFlight, report },
      );
    }
    return this.closed;
  }

  private async drain(graceMs: number, inFlight: number): Promise<DrainReport> {
    this.closing = true;
    if (this.newest) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    const cutOff = this.running;
    for (let entry = this.newest; entry;) {
      const older = entry.older; // read first: an abort may end its work synchronously
      entry.abort?.(shuttingDown());
      entry = older;
    }
    return { inFlight, cutOff, graceMs };
  }
}
