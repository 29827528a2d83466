import { Inject, Injectable } from '@nestjs/common';
import type { ToolDescriptor, ToolGuard, ToolGuardContext } from 'toolwright';

@Injectable()
export class TenantPolicy {
  private readonly suspended = new Set(['initech']);

  isSuspended(tenantId: unknown): boolean {
    return typeof tenantId === 'string' && this.suspended.has(tenantId);
  }
}

/**
 * A global guard class with an injected dependency. `canList` hides tools from a caller's
 * listing, and the runner also checks it on every call; `canActivate` decides the call.
 */
@Injectable()
export class TenantGuard implements ToolGuard {
  constructor(@Inject(TenantPolicy) private readonly policy: TenantPolicy) {}

  /** Receives the raw context (as the resolver returned it). */
  canList(tool: ToolDescriptor, context: Record<string, unknown>): boolean {
    return !(tool.annotations.readOnlyHint === false && this.policy.isSuspended(context.tenantId));
  }

  /** Receives the parsed input and the parsed context. `false` answers FORBIDDEN. */
  canActivate({ context }: ToolGuardContext): boolean {
    return (context as { tenantId?: string }).tenantId !== undefined;
  }
}
