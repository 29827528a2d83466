import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { InvoicesService } from './invoices.service.js';

/** What every billing tool needs to know about the caller: parsed once per call. */
export const BillingContext = z.object({ tenantId: z.string().min(1) });
export type BillingContext = z.infer<typeof BillingContext>;

const Invoice = z.object({
  id: z.string(),
  amount: z.number(),
  status: z.enum(['open', 'paid', 'void']),
});

@ToolFactory({ serviceName: 'billing', scope: 'tenant', context: BillingContext })
@Injectable()
export class InvoiceTools {
  constructor(@Inject(InvoicesService) private readonly invoices: InvoicesService) {}

  @Tool({
    action: 'listInvoices',
    method: 'GET',
    description: 'List the invoices of the current tenant.',
    input: z.object({}),
    output: z.object({ invoices: z.array(Invoice) }),
  })
  list({ context }: ToolCall<Record<string, never>, BillingContext>) {
    return { invoices: this.invoices.list(context.tenantId) };
  }

  @Tool({
    action: 'getInvoice',
    method: 'GET',
    description: 'Fetch one invoice by id.',
    input: z.object({ id: z.string().describe('An invoice id such as inv_1') }),
    output: Invoice,
  })
  get({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    return this.invoices.find(context.tenantId, input.id);
  }

  @Tool({
    action: 'voidInvoice',
    method: 'DELETE',
    description: 'Void an open invoice. It cannot be undone.',
    input: z.object({ id: z.string() }),
    output: Invoice,
  })
  void({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    return this.invoices.void(context.tenantId, input.id);
  }
}
