import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ToolInvoker } from 'toolwright';

/** A REST route that runs the same tool in-process: same validation, same context. */
@Controller('invoices')
export class InvoicesController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get(':id')
  get(@Param('id') id: string) {
    // Resolves to the tool's output, or rejects with its ToolError, which ToolsModule answers
    // with the error's status and envelope (404 for NOT_FOUND, 400 for VALIDATION_ERROR, …).
    return this.tools.invokeOrThrow('billing_get_invoice', { id }, { transport: 'AGENT' });
  }
}
