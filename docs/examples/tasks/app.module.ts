import { Logger, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { RedisInstanceBus, RedisTaskStore } from 'toolwright/redis';
import { ReportTools } from './report.tools.js';

const logger = new Logger('Redis');
const redis = new Redis(process.env.REDIS_URL!);
// ioredis reconnects on its own; without an `error` listener it prints each failed attempt
// as an unhandled error, with its stack.
redis.on('error', (error) => logger.warn(error.message));

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [ReportTools] }),
      mcp: {
        tasks: {
          // Where tasks live: any instance answers for any task. In memory when left out.
          store: new RedisTaskStore({ redis }),
          ttlMs: 6 * 60 * 60 * 1000, // a task and its result are kept 6 h from creation
          pollIntervalMs: 2_000, // what clients are told
        },
        // Carries a task's cancellation to the instance running it.
        bus: new RedisInstanceBus({ redis }),
      },
    }),
  ],
  providers: [ReportTools],
})
export class AppModule {}
