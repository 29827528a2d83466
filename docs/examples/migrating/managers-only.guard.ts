import { Injectable } from '@nestjs/common';
import type { ToolDescriptor, ToolGuard, ToolGuardContext } from 'toolwright';
import type { ShopContext } from './order.tools.js';

/**
 * Was a Nest guard on the tool's method, reading the raw request through
 * `context.switchToRpc().getContext<McpContext>().getRawRequest()`. A tool guard receives the
 * call's parsed context instead, and runs on every surface, in-process calls included.
 */
@Injectable()
export class ManagersOnly implements ToolGuard {
  /** Clerks do not see the tool in `tools/list`; a call by name is refused all the same. */
  canList(_tool: ToolDescriptor, context: Record<string, unknown>): boolean {
    return context.role === 'manager';
  }

  /** Anything but `true` answers FORBIDDEN. */
  canActivate({ context }: ToolGuardContext): boolean {
    return (context as ShopContext).role === 'manager';
  }
}
