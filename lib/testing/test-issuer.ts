import { randomBytes } from 'node:crypto';
import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import { BoundedMap } from '../core/bounded-map.js';
import { ToolsConfigurationError } from '../core/errors.js';
import { TESTING_MESSAGES } from './testing.messages.js';

/** How many tokens an issuer remembers; the oldest are forgotten (then refused) first. */
const MAX_TOKENS = 10_000;

/** Options of {@link createTestIssuer}. */
export interface TestIssuerOptions {
  /** The endpoint's resource (`mcp.auth.resource`): the audience of every token. */
  resource: string;
  /** The issuer the tokens name (`mcp.auth.issuers`). @default 'https://issuer.test' */
  issuer?: string;
}

/** Who a test token signs in as: the principal the tools receive. */
export interface TestPrincipalClaims {
  /** The OAuth client. @default 'test-client' */
  clientId?: string;
  /** The subject (`sub`), the user the token was issued for. */
  subject?: string;
  /** The scopes the token grants. @default [] */
  scopes?: readonly string[];
  /** How long the token is valid. @default 3600 */
  expiresInSeconds?: number;
  /** Other claims, in the principal's `claims`. */
  claims?: Record<string, unknown>;
}

/**
 * A stand-in authorization server for tests of an endpoint with `mcp.auth`: it issues opaque
 * tokens for principals you describe, and verifies them through `mcp.auth.verifyAccessToken`.
 * Nothing about it is global: an endpoint accepts its tokens only when its `mcp.auth` is built
 * from {@link TestIssuer.auth} (or names its `verifyAccessToken`), which a test does on purpose.
 */
export interface TestIssuer {
  /** The issuer identifier, for `mcp.auth.issuers`. */
  readonly issuer: string;
  /** The resource the tokens are issued for, for `mcp.auth.resource`. */
  readonly resource: string;
  /** The `mcp.auth` options that accept this issuer's tokens (spread them to add others). */
  auth(): { issuers: string; resource: string; verifyAccessToken: TestIssuer['verifyAccessToken'] };
  /** Verifies a token this issuer issued (`mcp.auth.verifyAccessToken`). */
  verifyAccessToken(token: string): Promise<AuthInfo>;
  /** A token that signs in as `principal`: send it as `authorization: Bearer <token>`. */
  token(principal?: TestPrincipalClaims): string;
}

/**
 * Creates a {@link TestIssuer}: a test signs in as any principal without a real authorization
 * server, through the endpoint's whole sign-in (the `401` challenge, audience and expiry checks,
 * the `403` step-up for missing scopes, the principal in the tools' context).
 *
 * @example
 * const issuer = createTestIssuer({ resource: 'https://api.example.com/mcp' });
 * // In the test's module: ToolsModule.forRoot({ registry, mcp: { auth: issuer.auth() } })
 * const token = issuer.token({ subject: 'ada', scopes: ['billing:read'] });
 * const client = await connectMcpClient(app, { headers: { authorization: `Bearer ${token}` } });
 */
export function createTestIssuer(options: TestIssuerOptions): TestIssuer {
  const issuer = options.issuer ?? 'https://issuer.test';
  if (!URL.canParse(issuer))
    throw new ToolsConfigurationError(TESTING_MESSAGES.issuerNotUrl(issuer));
  if (!URL.canParse(options.resource)) {
    throw new ToolsConfigurationError(TESTING_MESSAGES.resourceNotUrl(options.resource));
  }
  const { resource } = options;
  const issued = new BoundedMap<string, AuthInfo>(MAX_TOKENS);
  const verifyAccessToken = async (token: string): Promise<AuthInfo> => {
    const auth = issued.get(token);
    if (!auth) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is invalid.');
    return auth;
  };
  return {
    issuer,
    resource,
    auth: () => ({ issuers: issuer, resource, verifyAccessToken }),
    verifyAccessToken,
    token(principal = {}) {
      const token = `test-${randomBytes(18).toString('base64url')}`;
      const clientId = principal.clientId ?? 'test-client';
      const scopes = [...(principal.scopes ?? [])];
      const expiresAt = Math.floor(Date.now() / 1000) + (principal.expiresInSeconds ?? 3600);
      const claims = {
        ...principal.claims,
        iss: issuer,
        aud: resource,
        client_id: clientId,
        scope: scopes.join(' '),
        exp: expiresAt,
        ...(principal.subject !== undefined && { sub: principal.subject }),
      };
      issued.set(token, {
        token,
        clientId,
        scopes,
        expiresAt,
        resource: new URL(resource),
        extra: { claims, ...(principal.subject !== undefined && { subject: principal.subject }) },
      });
      return token;
    },
  };
}
