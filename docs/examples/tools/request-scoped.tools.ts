import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Tool, ToolFactory } from 'toolwright';
import { z } from 'zod';

/**
 * A request-scoped tool class: Nest builds a fresh instance for every call, with the current
 * HTTP request injected (or no request, for a call made outside one). Prefer a singleton and
 * the call's context unless you need request-scoped providers.
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
