import { Injectable } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ToolContextResolver } from 'toolwright';

/** Stands in for your directory: the tenant of each service client (client credentials). */
const TENANT_OF_CLIENT: Readonly<Record<string, string>> = { 'billing-cron': 'acme' };

/**
 * Turns the verified token on `request.auth` into the call's context. The endpoint adds the
 * token's principal (`context.principal`) to every call itself; the resolver adds what your
 * application derives from it, here the tenant: a `tenant` claim your identity provider adds to
 * users' tokens, or the tenant of a service client.
 */
@Injectable()
export class CallerFromToken implements ToolContextResolver {
  resolve(request: { auth?: AuthInfo }) {
    const auth = request.auth;
    if (!auth) return {};
    const claims = (auth.extra?.claims ?? {}) as { tenant?: unknown };
    const tenantId = typeof claims.tenant === 'string' ? claims.tenant : undefined;
    return { tenantId: tenantId ?? TENANT_OF_CLIENT[auth.clientId] };
  }
}
