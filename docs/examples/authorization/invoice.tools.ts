import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall, type ToolPrincipal } from 'toolwright';
import { z } from 'zod';
import { InvoicesService } from '../getting-started/invoices.service.js';

/**
 * The billing context: the tenant, and the verified caller. A context schema keeps only what it
 * declares, so `principal` is declared for the handlers to read it.
 */
export const BillingContext = z.object({
  tenantId: z.string().min(1),
  principal: z.custom<ToolPrincipal>((value) => typeof value === 'object' && value !== null),
});
export type BillingContext = z.infer<typeof BillingContext>;

/** Every tool of the class needs `billing:read`; voiding needs `billing:write` as well. */
@ToolFactory({
  serviceName: 'billing',
  scope: 'tenant',
  context: BillingContext,
  scopes: ['billing:read'],
})
@Injectable()
export class InvoiceTools {
  constructor(@Inject(InvoicesService) private readonly invoices: InvoicesService) {}

  @Tool({
    action: 'getInvoice',
    method: 'GET',
    description: 'Fetch one invoice by id.',
    input: z.object({ id: z.string() }),
  })
  get({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    return this.invoices.find(context.tenantId, input.id);
  }

  @Tool({
    action: 'voidInvoice',
    method: 'DELETE',
    description: 'Void an open invoice. It cannot be undone.',
    input: z.object({ id: z.string() }),
    scopes: ['billing:write'],
  })
  void({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    const invoice = this.invoices.void(context.tenantId, input.id);
    // Who did it, for the audit trail: the token's subject (a user), else its client.
    const by = context.principal.subject ?? context.principal.clientId;
    return { ...invoice, voidedBy: by };
  }
}
