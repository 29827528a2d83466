import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import type { Caller } from '../auth/api-key.guard.js';
import { TenantContext } from '../helpdesk/helpdesk.schemas.js';

let instances = 0;

/**
 * A request-scoped tool class: a fresh instance per call, with the current HTTP request
 * injected. Useful when a tool needs request-scoped providers; most tools should be singletons.
 */
@ToolFactory({ serviceName: 'session', context: TenantContext })
@Injectable({ scope: Scope.REQUEST })
export class SessionTools {
  private readonly instance = ++instances;

  constructor(
    @Inject(REQUEST) private readonly request: { user?: Caller; headers?: Record<string, unknown> },
  ) {}

  @Tool({
    action: 'whoami',
    method: 'GET',
    description: 'Tell who is calling: tenant, user and the client that sent the request.',
    input: z.object({}),
    output: z.object({
      tenantId: z.string(),
      userId: z.string(),
      userAgent: z.string().nullable(),
      instance: z.number(),
    }),
  })
  whoami({ context }: ToolCall<Record<string, never>, TenantContext>) {
    const agent = this.request?.headers?.['user-agent'];
    return {
      tenantId: context.tenantId,
      userId: context.userId,
      userAgent: typeof agent === 'string' ? agent : null,
      instance: this.instance,
    };
  }
}
