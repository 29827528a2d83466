import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { InvoicesService } from '../getting-started/invoices.service.js';

const Caller = z.object({ tenantId: z.string(), userAgent: z.string().optional() });
type Caller = z.infer<typeof Caller>;

/**
 * A singleton that still knows who is calling: what it needs from the request comes in the
 * call's context, so Nest does not build an instance per call as it would for Scope.REQUEST.
 * Register it with a resolver such as
 * `context: (req) => ({ tenantId: req.headers['x-tenant-id'], userAgent: req.headers['user-agent'] })`.
 */
@ToolFactory({ serviceName: 'billing_stats', context: Caller })
@Injectable()
export class BillingStatsTools {
  constructor(@Inject(InvoicesService) private readonly invoices: InvoicesService) {}

  @Tool({
    action: 'count',
    method: 'GET',
    description: 'Count the invoices of the current tenant.',
    input: z.object({}),
    output: z.object({ count: z.number(), client: z.string() }),
  })
  count({ context }: ToolCall<Record<string, never>, Caller>) {
    return {
      count: this.invoices.list(context.tenantId).length,
      client: context.userAgent ?? 'unknown',
    };
  }
}
