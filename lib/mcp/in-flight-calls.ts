/**
 * The `tools/call` requests in flight in this process, so that a 2025-era
 * `notifications/cancelled` — which arrives as its own stateless HTTP request — can abort the
 * call it names. Calls are keyed by the caller (credential and address) and the JSON-RPC id, so
 * one client cannot cancel another's call.
 */
export class InFlightCalls {
  private readonly calls = new Map<string, AbortController>();

  /** Registers a call; returns its signal and the function that forgets it. */
  track(caller: string, requestId: unknown): { signal: AbortSignal; done: () => void } {
    const key = `${caller}\u0000${JSON.stringify(requestId)}`;
    const controller = new AbortController();
    this.calls.set(key, controller);
    return {
      signal: controller.signal,
      done: () => {
        if (this.calls.get(key) === controller) this.calls.delete(key);
      },
    };
  }

  /** Aborts the caller's call with that id, if it is still running here. */
  cancel(caller: string, requestId: unknown, reason?: unknown): void {
    this.calls.get(`${caller}\u0000${JSON.stringify(requestId)}`)?.abort(reason);
  }

  /** How many calls are in flight. */
  get size(): number {
    return this.calls.size;
  }
}
