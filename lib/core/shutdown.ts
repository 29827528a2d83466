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

/**
 * The calls an invoker has in flight, so that shutting down can refuse new calls, let running
 * ones finish within a grace period, then abort the handlers still running.
 */
export class Shutdown {
  closing = false;
  private readonly active = new Set<AbortableCall>();
  private idle?: () => void;
  private closed?: Promise<void>;

  /** A call starts running. */
  enter(call: AbortableCall): void {
    this.active.add(call);
  }

  /** A call has its result. */
  leave(call: AbortableCall): void {
    this.active.delete(call);
    if (this.active.size === 0) this.idle?.();
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
    if (this.active.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    for (const call of this.active) call.abort(shuttingDown());
  }
}
