import { Inject, Injectable } from '@nestjs/common';
import type { ToolSet } from 'ai';
import { ToolInvoker } from 'toolwright';
import { createAgentTools } from 'toolwright/ai';

/**
 * In Nest, build the tool set from the injected ToolInvoker when you need it: the invoker is
 * compiled during app.init(), so a provider keeps a function rather than the set itself.
 */
@Injectable()
export class AgentToolsFactory {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  forTenant(tenantId: string): ToolSet {
    return createAgentTools(this.tools, {
      context: { tenantId },
      exclude: ['support_cancel_order'],
    });
  }
}
