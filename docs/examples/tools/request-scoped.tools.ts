import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Tool, ToolFactory } from 'toolwright';
import { z } from 'zod';

/**
 * A request-scoped tool class: Nest builds one instance per HTTP request, in that request's DI
 * sub-tree and with the request injected, shared by every call made while handling it; outside a
 * request, a fresh one for every call, with no request. Prefer a singleton and the call's context
 * unless you need request-scoped providers.
 */
@ToolFactory({ serviceName: 'session' })
@Injectable({ scope: Scope.REQUEST })
export class SessionTools {
  constructor(@Inject(REQUEST) private readonly request: { headers?: Record<string, unknown> }) {}

  @Tool({
    action: 'userAgent',
    method: 'GET',
    description: 'Tell which client sent the current request.',
    input: z.object({}),
    output: z.object({ userAgent: z.string().nullable() }),
  })
  userAgent() {
    const agent = this.request?.headers?.['user-agent'];
    return { userAgent: typeof agent === 'string' ? agent : null };
  }
}
