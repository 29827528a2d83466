import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { filter, type Subscription } from 'rxjs';
import { ToolEvents } from 'toolwright';

/** Counts failures per tool and error code from the hot event stream. */
@Injectable()
export class ToolMetrics implements OnModuleInit, OnModuleDestroy {
  readonly failures = new Map<string, number>();
  private subscription?: Subscription;

  constructor(@Inject(ToolEvents) private readonly events: ToolEvents) {}

  onModuleInit() {
    // No replay: subscribe before the calls you want to see.
    this.subscription = this.events.events$
      .pipe(filter((event) => !event.ok))
      .subscribe(({ name, errorCode }) => {
        const key = `${name}:${errorCode}`;
        this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      });
  }

  onModuleDestroy() {
    this.subscription?.unsubscribe();
  }
}
