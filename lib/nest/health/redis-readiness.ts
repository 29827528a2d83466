/**
 * Something a readiness check can ask whether it answers: `RedisInstanceBus` and
 * `RedisTaskStore` (of `toolwright/redis`) are; an instance bus or task store of the
 * application's own is checked too when it has a `ping()`.
 */
export interface Pingable {
  /** Resolves when the service answers; rejects, with why, when it does not. */
  ping(): Promise<void>;
}

/** Whether a value has a `ping()` to call. */
export function isPingable(value: unknown): value is Pingable {
  return typeof (value as Partial<Pingable> | undefined)?.ping === 'function';
}

/**
 * Whether the shared services (Redis: the instance bus, the task store) answer, asked at most
 * once per `intervalMs` however many probes come: a probe within the interval is answered from
 * the last ping, probes that come while a ping is out wait for that one ping.
 */
export class SharedServicesCheck {
  private last?: { readonly at: number; readonly failure?: string };
  private pending?: Promise<string | undefined>;

  constructor(
    private readonly services: readonly Pingable[],
    private readonly intervalMs: number,
  ) {}

  /** Whether there is anything to check at all. */
  get empty(): boolean {
    return this.services.length === 0;
  }

  /** `undefined` when every service answered its last ping, else why one did not. */
  failure(): Promise<string | undefined> {
    const { last } = this;
    if (last && Date.now() - last.at < this.intervalMs) return Promise.resolve(last.failure);
    return (this.pending ??= this.ping());
  }

  private async ping(): Promise<string | undefined> {
    const at = Date.now();
    const settled = await Promise.allSettled(this.services.map((service) => service.ping()));
    const rejected = settled.find((result) => result.status === 'rejected');
    const failure = rejected && (rejected.reason as Error)?.message;
    this.last = { at, failure: rejected ? (failure ?? String(rejected.reason)) : undefined };
    this.pending = undefined;
    return this.last.failure;
  }
}
