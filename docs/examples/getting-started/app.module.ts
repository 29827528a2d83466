import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoiceTools } from './invoice.tools.js';
import { InvoicesController } from './invoices.controller.js';
import { InvoicesService } from './invoices.service.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools] }),
      // Turns the current HTTP request into the call's context (parsed by BillingContext).
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
    }),
  ],
  controllers: [InvoicesController],
  // A tool class is an ordinary provider: the registry names it, a module provides it.
  providers: [InvoicesService, InvoiceTools],
})
export class AppModule {}
