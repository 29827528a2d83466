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

/**
 * Running work — an invoker's calls, an MCP endpoint's answers — that a shutdown drains: it
 * refuses new work, lets running work finish within a grace period, then aborts what is left.
 */
export class Drain {
  closing = false;
  // A linked list rather than a Set, so that entering and leaving hash no object per call.
  private newest?: RunningWork;
  private idle?: () => void;
  private closed?: Promise<void>;

  /** Work starts (one piece of work enters once); hand what this returns to `leave`, on every path. */
  enter(work: RunningWork = {}): RunningWork {
    work.older = this.newest;
    work.newer = undefined;
    if (this.newest) this.newest.newer = work;
    this.newest = work;
    return work;
  }

  /** Work is over. Leaving twice is harmless. */
  leave(entry: RunningWork): void {
    if (entry.newer) entry.newer.older = entry.older;
    else if (this.newest === entry) this.newest = entry.older;
    else return; // already left
    if (entry.older) entry.older.newer = entry.newer;
    entry.older = entry.newer = undefined;
    if (!this.newest) this.idle?.();
  }

  /**
   * Refuses new work, waits up to `graceMs` for running work, then aborts what is left. Closing
   * again (the MCP endpoint waits for the same drain) joins the first close.
   */
  close(graceMs: number): Promise<void> {
    return (this.closed ??= this.drain(graceMs));
  }

  private async drain(graceMs: number): Promise<void> {
    this.closing = true;
    if (this.newest) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    for (let entry = this.newest; entry;) {
      const older = entry.older; // read first: an abort may end its work synchronously
      entry.abort?.(shuttingDown());
      entry = older;
    }
  }
}
