import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolError, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { BillingContext } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';

/**
 * The application's own `billing_get_invoice`: same service name and action, so the same
 * tool name. It refuses void invoices, which the feature's version returns.
 */
@ToolFactory({ serviceName: 'billing', scope: 'tenant', context: BillingContext })
@Injectable()
export class StrictLookupTools {
  constructor(@Inject(InvoicesService) private readonly invoices: InvoicesService) {}

  @Tool({
    action: 'getInvoice',
    method: 'GET',
    description: 'Fetch one invoice by id; void invoices are not found.',
    input: z.object({ id: z.string() }),
    output: z.object({ id: z.string(), amount: z.number(), status: z.enum(['open', 'paid']) }),
  })
  get({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    const invoice = this.invoices.find(context.tenantId, input.id);
    if (invoice.status === 'void')
      throw new ToolError('NOT_FOUND', { message: 'No such invoice.' });
    return invoice;
  }
}
