import { createHash } from 'node:crypto';
import { principalOf, type ToolPrincipal } from './principal.js';
import type { ToolContext } from './types.js';

/**
 * Says who is calling, for the state that outlives one request: the tasks a caller created,
 * the answers and cancellations a 2025-era client sends as requests of their own, and the
 * binding of a 2026-era `requestState`. A caller signed in with `mcp.auth` is always its
 * token's issuer, subject and client; this decides for every other request. It receives the
 * HTTP request (as its host gave it) and a function that resolves the request's context, as a
 * tool call would see it (resolved only when called). Return a stable string for each caller
 * (a user id, a tenant and a user), or `undefined` when the request names nobody. Never the
 * network address: one address carries many callers behind a proxy, and one caller may come
 * through several.
 *
 * @example
 * ToolsModule.forRoot({
 *   registry,
 *   mcp: { identify: (request) => (request as { user?: { id: string } }).user?.id },
 * });
 */
export type IdentifyCaller = (
  request: unknown,
  context: () => Promise<ToolContext>,
) => string | undefined | Promise<string | undefined>;

/**
 * How toolwright tells callers apart when the application sets no `identify`: the `id`, `sub`
 * or `userId` of the `request.user` a Nest guard or Passport set, else the `principal` the
 * application's context resolver put in the request's context. `undefined` when there is
 * neither.
 */
export const identifyByUserOrPrincipal: IdentifyCaller = async (request, context) => {
  const id = userId((request as { user?: unknown } | undefined)?.user);
  if (id !== undefined) return JSON.stringify(['user', id]);
  const principal = principalOf(await context());
  return principal && principalIdentity(principal);
};

/** The identity of a principal: its issuer, subject and client, each of which tells callers apart. */
export function principalIdentity(principal: ToolPrincipal): string {
  return JSON.stringify([
    'principal',
    principal.issuer ?? '',
    principal.subject ?? '',
    principal.clientId,
  ]);
}

function userId(user: unknown): string | undefined {
  if (typeof user === 'string' && user !== '') return user;
  if (typeof user !== 'object' || user === null) return undefined;
  const { id, sub, userId } = user as Record<string, unknown>;
  for (const value of [id, sub, userId]) {
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/**
 * The key an identity is kept under, the same on every instance: a SHA-256 digest, so that no
 * user id or credential leaves the process in a key or a message.
 */
export function identityKey(identity: string): string {
  return createHash('sha256').update(identity).digest('base64url');
}
