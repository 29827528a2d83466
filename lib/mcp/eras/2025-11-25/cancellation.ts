import type { Server } from '@modelcontextprotocol/server';
import { detachedListener, ignore } from '../../../core/detached.js';
import type { CallerSignal } from '../../../core/handler-wait.js';
import type { ToolLogger } from '../../../core/hooks.js';
import type { InstanceBus } from '../../../core/instance-bus.js';
import { digest } from '../../asking.js';
import type { McpCallChannel } from '../../tool-surface.js';
import type { McpCallCancellation } from '../era.js';

/** Where a cancellation that reached another instance is passed on. */
const CANCELLATIONS = 'toolwright:mcp:cancellations';

/** A cancellation passed on to the other instances: the caller travels as a digest. */
interface PassedCancellation {
  readonly who: string;
  readonly requestId: unknown;
  readonly reason?: unknown;
}

/** What a cancellation aborts: an `AbortController`, or the endpoint's `DisconnectSignal`. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/** The calls in flight under one caller and request id. */
interface Entry {
  /** The caller's identity (see `IdentifyCaller`). */
  readonly caller: string;
  readonly requestId: unknown;
  readonly controllers: Set<Abortable>;
}

/**
 * The 2025-era `tools/call` requests running in this process, so that a 2025-era
 * `notifications/cancelled` — which arrives as its own stateless HTTP request, perhaps on
 * another instance — can abort the call it names. Calls are keyed by the caller's identity
 * and the JSON-RPC id; a call whose request names no caller cannot be cancelled this way (a
 * cancellation from nobody could come from anybody). A cancellation for no call of this process
 * is passed on over the instance bus, and the instance running the call aborts it.
 *
 * Two clients of one identity (one user in two windows) number their requests independently,
 * so their ids may collide. When more than one call is in flight under a key, a cancellation
 * for it is ignored (the spec lets a receiver ignore one) rather than risk stopping the other.
 */
export class CancellableCalls {
  private readonly calls = new Map<string, Entry>();

  constructor(
    private readonly bus?: InstanceBus,
    private readonly logger: Pick<ToolLogger, 'error'> = console,
  ) {}

  /**
   * Starts hearing the cancellations that reach other instances; resolves to the function that
   * stops. Without a bus there is nothing to hear.
   */
  listen(): Promise<() => Promise<void>> {
    if (!this.bus) return Promise.resolve(() => Promise.resolve());
    return this.bus.subscribe(
      CANCELLATIONS,
      detachedListener(
        (text: string) => {
          const { who, requestId, reason } = JSON.parse(text) as PassedCancellation;
          const id = JSON.stringify(requestId);
          for (const entry of this.calls.values()) {
            if (JSON.stringify(entry.requestId) === id && digest(entry.caller) === who) {
              abortOnly(entry, reason);
            }
          }
        },
        (error) =>
          this.logger.error(
            '[toolwright] MCP: a cancellation passed on by another instance could not be read:',
            error,
          ),
      ),
    );
  }

  /**
   * Registers a call in flight under its caller's identity, once that is known, with what
   * cancels it; returns the function that forgets it, whether or not the identity came first.
   * A call need not be registered before it waits on something: nothing else runs until then.
   */
  track(
    identity: Promise<string | undefined>,
    requestId: unknown,
    controller: Abortable,
  ): () => void {
    let forget: (() => void) | undefined;
    let ended = false;
    identity.then((caller) => {
      if (!ended && caller !== undefined) forget = this.register(caller, requestId, controller);
    }, ignore);
    return () => {
      ended = true;
      forget?.();
    };
  }

  private register(caller: string, requestId: unknown, controller: Abortable): () => void {
    const key = keyOf(caller, requestId);
    let entry = this.calls.get(key);
    if (!entry) this.calls.set(key, (entry = { caller, requestId, controllers: new Set() }));
    entry.controllers.add(controller);
    const tracked = entry;
    return () => {
      tracked.controllers.delete(controller);
      if (tracked.controllers.size === 0 && this.calls.get(key) === tracked) {
        this.calls.delete(key);
      }
    };
  }

  /**
   * Aborts the caller's call with that id, if it is the only one of that key running here;
   * when none runs here, passes the cancellation on to the other instances. Resolves once
   * done; rejects when the bus could not take it. A request that names no caller cancels
   * nothing.
   */
  cancel(caller: string | undefined, requestId: unknown, reason?: unknown): Promise<void> {
    if (caller === undefined) return Promise.resolve();
    const entry = this.calls.get(keyOf(caller, requestId));
    if (entry) {
      abortOnly(entry, reason);
      return Promise.resolve();
    }
    if (!this.bus) return Promise.resolve();
    const passed: PassedCancellation = { who: digest(caller), requestId, reason };
    return this.bus.publish(CANCELLATIONS, JSON.stringify(passed));
  }

  /** How many calls are in flight. */
  get size(): number {
    let size = 0;
    for (const entry of this.calls.values()) size += entry.controllers.size;
    return size;
  }
}

function abortOnly(entry: Entry, reason: unknown): void {
  if (entry.controllers.size !== 1) return;
  for (const controller of entry.controllers) controller.abort(reason);
}

function keyOf(caller: string, requestId: unknown): string {
  return `${caller}\u0000${JSON.stringify(requestId)}`;
}

/**
 * How a 2025-era cancellation reaches a call served statelessly: the call is tracked in
 * `calls` under its caller and request id. A channel that owns its signal's controller is
 * tracked only once the call waits on something (no cancellation can reach it before); any
 * other channel's signal is joined with a controller of the call's own, tracked at once.
 */
export function cancellableCall(
  calls: CancellableCalls,
  identity: () => Promise<string | undefined>,
  channel: McpCallChannel,
): McpCallCancellation {
  const { requestId } = channel;
  if (channel.controller) {
    return new TrackedOnceWaiting(calls, identity, requestId, channel.controller, channel.signal);
  }
  const controller = new AbortController();
  const untrack = calls.track(identity(), requestId, controller);
  return new TrackedCall(untrack, AbortSignal.any([channel.signal, controller.signal]));
}

// Classes rather than closures: a call answered at once allocates no closure context here.

/** A call tracked from its first wait on, with the controller its channel owns. */
class TrackedOnceWaiting implements McpCallCancellation {
  private untrack?: () => void;

  constructor(
    private readonly calls: CancellableCalls,
    private readonly identity: () => Promise<string | undefined>,
    private readonly requestId: unknown,
    private readonly controller: Abortable,
    readonly signal: CallerSignal,
  ) {}

  waits(): void {
    this.untrack ??= this.calls.track(this.identity(), this.requestId, this.controller);
  }

  ended(): void {
    this.untrack?.();
  }
}

/** A call tracked from its start, with a controller of its own. */
class TrackedCall implements McpCallCancellation {
  constructor(
    readonly ended: () => void,
    readonly signal: CallerSignal,
  ) {}

  waits(): void {}
}

/**
 * Hears a 2025-era `notifications/cancelled` on a request's server: it cancels the caller's
 * call of that id, here or on the instance running it. A cancellation the bus could not take
 * is logged.
 */
export function registerCancellation(
  server: Server,
  calls: CancellableCalls,
  identity: () => Promise<string | undefined>,
  logger: Pick<ToolLogger, 'error'>,
): void {
  server.setNotificationHandler('notifications/cancelled', async (notification) =>
    calls
      .cancel(await identity(), notification.params?.requestId, notification.params?.reason)
      .catch((error: unknown) =>
        logger.error(
          '[toolwright] MCP: a cancellation could not be passed to the other instances:',
          error,
        ),
      ),
  );
}
