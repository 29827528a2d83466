import { Module } from '@nestjs/common';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { ping } from '../tools/runtime-tools.js';

/**
 * A reusable feature module. It provides its tool classes and exports the list of its tools
 * as registry defaults; the application decides what to mount.
 */
export const BILLING_TOOLS = [InvoiceTools, ping] as const;

@Module({
  providers: [InvoicesService, InvoiceTools],
  exports: [InvoicesService],
})
export class BillingModule {}
