import { Inject, Injectable } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  ToolError,
  type ToolContext,
  type ToolContextResolver,
  type ToolPrincipal,
} from 'toolwright';
import { DatabaseService } from '../database/database.service.js';
import { HELPDESK_SCOPES } from '../helpdesk/helpdesk.scopes.js';
import { SERVICE_CLIENTS } from '../oauth/accounts.js';
import type { Caller } from './api-key.guard.js';

/**
 * The principal of a caller with full access, who holds every scope of the help desk: an API
 * key's caller, or whoever runs the command line.
 */
export function fullAccess(clientId: string, subject: string): ToolPrincipal {
  return { clientId, subject, scopes: HELPDESK_SCOPES };
}

/**
 * Turns the request the API-key guard or the MCP endpoint's sign-in has authenticated into a
 * tool call's context. Tools run from REST or MCP see the caller's tenant and user; outside a
 * request (the command line), the context comes from the caller.
 *
 * - An API key (`request.user`, set by `ApiKeyGuard`) is full access: its principal holds every
 *   scope.
 * - An OAuth access token (`request.auth`, verified by the MCP endpoint of `npm run
 *   sample:oauth`) acts for a user of the database (its subject) or, from a service client
 *   (client credentials), for that client's tenant. The endpoint adds the token's principal, with
 *   the scopes it was granted, to every call's context itself.
 */
@Injectable()
export class CallerContextResolver implements ToolContextResolver {
  constructor(@Inject(DatabaseService) private readonly database: DatabaseService) {}

  resolve(request: { user?: Caller; auth?: AuthInfo }): ToolContext {
    if (request.user) {
      const { tenantId, userId } = request.user;
      return { tenantId, userId, principal: fullAccess('api-key', userId) };
    }
    if (request.auth) return this.fromToken(request.auth);
    return {};
  }

  private fromToken(auth: AuthInfo): ToolContext {
    const sub = auth.extra?.subject;
    const subject = typeof sub === 'string' ? sub : undefined;
    // A client credentials token's subject is the client itself.
    if (subject === undefined || subject === auth.clientId) {
      const service = SERVICE_CLIENTS.find((client) => client.clientId === auth.clientId);
      if (service) return { tenantId: service.tenantId, userId: service.clientId };
    } else {
      const user = this.database.db
        .prepare('SELECT id AS userId, tenant_id AS tenantId FROM users WHERE id = ?')
        .get(subject) as Caller | undefined;
      if (user) return { tenantId: user.tenantId, userId: user.userId };
    }
    throw new ToolError('FORBIDDEN', {
      message: 'This access token acts for nobody the help desk knows.',
    });
  }
}
