import { Logger, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { RedisInstanceBus } from 'toolwright/redis';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';

const logger = new Logger('Redis');
const redis = new Redis(process.env.REDIS_URL!);
// ioredis reconnects on its own; without an `error` listener it prints each failed attempt
// as an unhandled error, with its stack.
redis.on('error', (error) => logger.warn(error.message));

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools] }),
      mcp: {
        // Every replica shares one Redis: 2025-era cancellations and answers reach the call.
        bus: new RedisInstanceBus({ redis }),
        // Redis away at startup: refuse to start, rather than start and subscribe once it is back.
        busRequired: process.env.MCP_BUS_REQUIRED === 'true',
        // The same key on every replica: any of them takes the next round of a question.
        requestState: { key: process.env.MCP_STATE_KEY! },
      },
    }),
  ],
  providers: [InvoicesService, InvoiceTools],
})
export class AppModule {}
