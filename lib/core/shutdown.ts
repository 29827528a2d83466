import { ToolError } from './errors.js';

/** A call that can be told to stop (its handler's signal fires). */
export interface AbortableCall {
  abort(reason: ToolError): void;
}

/** The error of a call refused, or cut short, because its invoker is shutting down. */
export function shuttingDown(): ToolError {
  return new ToolError('SERVICE_UNAVAILABLE', {
    message: 'The application is shutting down; retry the call.',
  });
}

/** A call in flight, linked to the calls that entered before and after it. */
export interface InFlight {
  /** What to abort when the grace period ends; work that stops on its own has none. */
  readonly call?: AbortableCall;
  older: InFlight | undefined;
  newer: InFlight | undefined;
}

/**
 * What is in flight — an invoker's calls, an MCP endpoint's requests — so that shutting down can
 * refuse new work, let running work finish within a grace period, then abort what is left.
 */
export class Shutdown {
  closing = false;
  // A linked list rather than a Set, so that entering and leaving hash no object per call.
  private newest?: InFlight;
  private idle?: () => void;
  private closed?: Promise<void>;

  /** A call starts running; hand what this returns to `leave`. */
  enter(call?: AbortableCall): InFlight {
    const entry: InFlight = { call, older: this.newest, newer: undefined };
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    return entry;
  }

  /** A call has its result. */
  leave(entry: InFlight): void {
    if (entry.newer) entry.newer.older = entry.older;
    else if (this.newest === entry) this.newest = entry.older;
    else return; // already left
    if (entry.older) entry.older.newer = entry.newer;
    entry.older = entry.newer = undefined;
    if (!this.newest) this.idle?.();
  }

  /**
   * Refuses new calls, waits up to `graceMs` for running ones, then aborts what is left. Closing
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
      const older = entry.older; // read first: an abort may end its call synchronously
      entry.call?.abort(shuttingDown());
      entry = older;
    }
  }
}
