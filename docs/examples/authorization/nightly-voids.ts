import { Inject, Injectable } from '@nestjs/common';
import { ToolInvoker, type ToolPrincipal } from 'toolwright';

/**
 * Tool scopes are checked on every surface. A call from your own code, outside any request,
 * carries the principal it acts as in its context.
 */
@Injectable()
export class NightlyVoids {
  private readonly principal: ToolPrincipal = {
    clientId: 'nightly-voids',
    scopes: ['billing:read', 'billing:write'],
  };

  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  async run(tenantId: string, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await this.tools.invokeOrThrow(
        'billing_void_invoice',
        { id },
        { transport: 'AGENT', context: { tenantId, principal: this.principal } },
      );
    }
  }
}
