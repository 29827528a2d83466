import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ToolInvoker } from 'toolwright';

/** A REST route that runs the same tool in-process: same validation, same context. */
@Controller('invoices')
export class InvoicesController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get(':id')
  get(@Param('id') id: string) {
    // Resolves to { ok: true, data } or { ok: false, error }: it never throws for a found tool.
    return this.tools.invoke('billing_get_invoice', { id }, { transport: 'AGENT', source: 'rest' });
  }
}
