import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { RedisInstanceBus, RedisTaskStore } from 'toolwright/redis';
import { ReportTools } from './report.tools.js';

const redis = new Redis(process.env.REDIS_URL!);

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
