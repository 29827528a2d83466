import { Injectable } from '@nestjs/common';
import type { ToolContextResolver } from 'toolwright';
import type { Caller } from './api-key.guard.js';

/**
 * Turns the request the API-key guard has authenticated into a tool call's context. Tools run
 * from REST or MCP see the caller's tenant and user; outside a request (the CLI), the context
 * comes from the caller.
 */
@Injectable()
export class CallerContextResolver implements ToolContextResolver {
  resolve(request: { user?: Caller }) {
    return request.user ? { tenantId: request.user.tenantId, userId: request.user.userId } : {};
  }
}
