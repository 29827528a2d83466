import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolError, ToolsModule } from 'toolwright';
import { ping } from '../tools/runtime-tools.js';

/** Stands in for your database driver's error class. */
export class LockTimeoutError extends Error {}

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [ping] }),
      // Runs before the built-in rules (HttpException mapping included); return undefined to
      // leave a value to them.
      mapError: (error) =>
        error instanceof LockTimeoutError
          ? new ToolError('SERVICE_UNAVAILABLE', { message: 'The database is busy; try again.' })
          : undefined,
    }),
  ],
})
export class AppModule {}
