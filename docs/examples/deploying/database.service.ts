import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

/**
 * Stands in for a connection pool. It closes in `onApplicationShutdown`, which Nest runs after
 * toolwright's grace period, so calls still running during the grace period can use it.
 * (`onModuleDestroy` hooks may run while calls are still draining.)
 */
@Injectable()
export class DatabaseService implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseService.name);
  open = true;

  onApplicationShutdown(signal?: string) {
    this.open = false;
    this.logger.log(`pool closed (${signal ?? 'app.close()'})`);
  }
}
