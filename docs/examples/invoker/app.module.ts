import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { exportReport } from '../tools/runtime-tools.js';
import { ReportsService } from './cancellation.js';
import { CollectionsController } from './collections.controller.js';
import { CollectionsService } from './collections.service.js';
import { StatementTools } from './nested.tools.js';
import { NightlyJob } from './nightly-job.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, StatementTools, exportReport] }),
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
      maxDepth: 4,
    }),
  ],
  controllers: [CollectionsController],
  providers: [
    InvoicesService,
    InvoiceTools,
    StatementTools,
    CollectionsService,
    NightlyJob,
    ReportsService,
  ],
})
export class InvokerAppModule {}
