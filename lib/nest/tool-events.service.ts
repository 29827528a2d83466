import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Subject, type Observable } from 'rxjs';
import type { ToolCallEvent } from '../core/hooks.js';

/**
 * A hot stream of one event per finished tool call, on every surface. No replay: subscribe
 * before the calls you want to see.
 *
 * @example
 * constructor(events: ToolEvents) {
 *   events.events$.pipe(filter((e) => !e.ok)).subscribe((e) => metrics.increment(e.errorCode));
 * }
 */
@Injectable()
export class ToolEvents implements OnApplicationShutdown {
  private readonly subject = new Subject<ToolCallEvent>();

  /** One event per finished call: name, identity, transport, source, ok, errorCode, duration, ids. */
  readonly events$: Observable<ToolCallEvent> = this.subject.asObservable();

  /** @internal Emits a finished call. */
  emit(event: ToolCallEvent): void {
    this.subject.next(event);
  }

  /** Completes the stream last, so calls that finish while the application drains still emit. */
  onApplicationShutdown(): void {
    this.subject.complete();
  }
}
