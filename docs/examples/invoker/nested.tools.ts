import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, ToolInvoker, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { BillingContext } from '../getting-started/invoice.tools.js';

/**
 * A tool that calls other tools. The inner calls run inside the outer one: they know their
 * parent (`call.parentId`, `call.depth`), are cancelled with it, and count towards `maxDepth`.
 */
@ToolFactory({ serviceName: 'billing', scope: 'tenant', context: BillingContext })
@Injectable()
export class StatementTools {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Tool({
    action: 'statement',
    method: 'GET',
    description: 'Summarise the open invoices of the current tenant.',
    input: z.object({}),
    output: z.object({ open: z.number(), total: z.number() }),
  })
  async statement({ context }: ToolCall<Record<string, never>, BillingContext>) {
    // The inner call gets the ambient request context; pass the parsed one along explicitly
    // so the statement also works outside a request.
    const { invoices } = await this.tools.invokeOrThrow<{
      invoices: { amount: number; status: string }[];
    }>('billing_list_invoices', {}, { transport: 'AGENT', context });
    const open = invoices.filter((invoice) => invoice.status === 'open');
    return { open: open.length, total: open.reduce((sum, i) => sum + i.amount, 0) };
  }
}
