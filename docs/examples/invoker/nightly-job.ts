import { Inject, Injectable } from '@nestjs/common';
import { ToolInvoker, ToolRequestContext } from 'toolwright';

/**
 * Work that runs outside any HTTP request (a cron job, a queue consumer): there is no request
 * for the context resolver, so the caller gives the context explicitly.
 */
@Injectable()
export class NightlyJob {
  constructor(
    @Inject(ToolInvoker) private readonly tools: ToolInvoker,
    @Inject(ToolRequestContext) private readonly requests: ToolRequestContext,
  ) {}

  /** The explicit context is all the call gets. */
  listFor(tenantId: string) {
    return this.tools.invoke(
      'billing_list_invoices',
      {},
      { transport: 'AGENT', source: 'cron', context: { tenantId } },
    );
  }

  /**
   * Or make a request-like object current, so the configured resolver runs as it would for
   * an HTTP request (here it reads `headers['x-tenant-id']`).
   */
  listAs(tenantId: string) {
    return this.requests.run({ headers: { 'x-tenant-id': tenantId } }, () =>
      this.tools.invoke('billing_list_invoices', {}, { transport: 'AGENT', source: 'queue' }),
    );
  }
}
