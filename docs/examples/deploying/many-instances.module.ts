import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { RedisInstanceBus } from 'toolwright/redis';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools] }),
      mcp: {
        // Every replica shares one Redis: 2025-era cancellations and answers reach the call.
        bus: new RedisInstanceBus({ redis: new Redis(process.env.REDIS_URL!) }),
        // The same key on every replica: any of them takes the next round of a question.
        requestState: { key: process.env.MCP_STATE_KEY! },
      },
    }),
  ],
  providers: [InvoicesService, InvoiceTools],
})
export class AppModule {}
