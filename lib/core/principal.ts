import { ToolError } from './errors.js';
import type { ToolContext } from './types.js';

/**
 * The verified caller of a call, under `principal` in its context: the MCP endpoint puts it there
 * from a verified bearer token; an in-process caller passes it in `context`. Tool scopes are
 * checked against its `scopes`. It carries no token, and toolwright never logs it nor puts it in
 * an error or an event.
 *
 * @example
 * await invoker.invoke(
 *   'billing_void_invoice',
 *   { id },
 *   {
 *     transport: 'AGENT',
 *     context: { principal: { clientId: 'billing-cron', scopes: ['billing:write'] } },
 *   },
 * );
 */
export interface ToolPrincipal {
  /** The authorization server that issued the token (its `iss`), when it names one. */
  readonly issuer?: string;
  /** The subject (`sub`) the token was issued for, when it names one. */
  readonly subject?: string;
  /** The OAuth client the token was issued to. */
  readonly clientId: string;
  /** The scopes the token grants. */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** The token's other claims, as the verifier returned them. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** The context key of the call's principal. */
export const PRINCIPAL_KEY = 'principal';

/** The principal of a call's context, when it has a well-formed one. */
export function principalOf(context: ToolContext | undefined): ToolPrincipal | undefined {
  const principal = context?.[PRINCIPAL_KEY] as ToolPrincipal | undefined;
  if (typeof principal !== 'object' || principal === null) return undefined;
  return Array.isArray(principal.scopes) ? principal : undefined;
}

/** The scopes of `required` that `granted` lacks (all of them when nothing is granted). */
export function missingScopes(
  required: readonly string[],
  granted: readonly string[] | undefined,
): readonly string[] {
  if (!granted) return required;
  return required.filter((scope) => !granted.includes(scope));
}

/**
 * The refusal of a call whose principal lacks some of the tool's scopes: `FORBIDDEN`, with the
 * scopes the tool requires in `details` (the principal itself never appears).
 */
export function insufficientScope(name: string, required: readonly string[]): ToolError {
  return new ToolError('FORBIDDEN', {
    message: `The call to "${name}" needs the scopes ${required.join(' ')}.`,
    details: { requiredScopes: [...required] },
    hint: 'Sign in again asking for these scopes.',
  });
}

// RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Whether a value is an OAuth scope token (RFC 6749 §3.3). */
export function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value);
}
