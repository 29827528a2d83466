/**
 * The 2025-era `tools/call` requests running in this process, so that a 2025-era
 * `notifications/cancelled` — which arrives as its own stateless HTTP request — can abort the
 * call it names. Calls are keyed by the caller (credential and address) and the JSON-RPC id.
 *
 * Two clients the server cannot tell apart (same credential, same address — e.g. behind one
 * proxy) number their requests independently, so their ids collide. When more than one call is
 * in flight under a key, a cancellation for it is ignored (the spec lets a receiver ignore one)
 * rather than risk stopping another client's call.
 */
export class CancellableCalls {
  private readonly calls = new Map<string, Set<AbortController>>();

  /**
   * Registers a call, with the controller that cancels it (a new one unless the caller owns
   * one already); returns its signal and the function that forgets it.
   */
  track(
    caller: string,
    requestId: unknown,
    controller = new AbortController(),
  ): { signal: AbortSignal; done: () => void } {
    const key = keyOf(caller, requestId);
    let entries = this.calls.get(key);
    if (!entries) this.calls.set(key, (entries = new Set()));
    entries.add(controller);
    const tracked = entries;
    return {
      signal: controller.signal,
      done: () => {
        tracked.delete(controller);
        if (tracked.size === 0 && this.calls.get(key) === tracked) this.calls.delete(key);
      },
    };
  }

  /** Aborts the caller's call with that id, if it is the only one of that key running here. */
  cancel(caller: string, requestId: unknown, reason?: unknown): void {
    const entries = this.calls.get(keyOf(caller, requestId));
    if (entries?.size !== 1) return;
    for (const controller of entries) controller.abort(reason);
  }

  /** How many calls are in flight. */
  get size(): number {
    let size = 0;
    for (const entries of this.calls.values()) size += entries.size;
    return size;
  }
}

function keyOf(caller: string, requestId: unknown): string {
  return `${caller}\u0000${JSON.stringify(requestId)}`;
}
