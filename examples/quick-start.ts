/**
 * The README's quick start, compiled by `npm run typecheck`.
 */
import { Inject, Injectable, Module } from '@nestjs/common';
import { z } from 'zod';
import { Tool, ToolFactory, ToolInvoker, ToolsModule, type ToolCall } from 'toolwright';

@ToolFactory({ serviceName: 'billing', context: z.object({ tenantId: z.string() }) })
@Injectable()
export class InvoiceTools {
  @Tool({
    action: 'getInvoice',
    method: 'GET',
    description: 'Fetch one invoice by id',
    input: z.object({ id: z.string() }),
  })
  get({ input, context }: ToolCall<{ id: string }, { tenantId: string }>) {
    return { id: input.id, tenantId: context.tenantId };
  }
}

@Module({
  providers: [InvoiceTools],
  imports: [
    ToolsModule.forRoot({
      registry: [InvoiceTools],
      context: (req) => ({ tenantId: req.headers['x-tenant-id'] }),
    }),
  ],
})
export class AppModule {}

/** Any service can run the same tool in-process. */
@Injectable()
export class InvoiceReport {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  first() {
    return this.tools.invoke('billing_get_invoice', { id: 'inv_1' }, { transport: 'AGENT' });
  }
}
