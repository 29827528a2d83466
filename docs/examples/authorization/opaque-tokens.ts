import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import type { McpAuthOptions } from 'toolwright';

const RESOURCE = 'https://api.example.com/mcp';
const INTROSPECTION_URL = 'https://sso.example.com/oauth2/introspect';

interface Introspection {
  active?: boolean;
  client_id?: string;
  sub?: string;
  scope?: string;
  exp?: number;
  aud?: string | string[];
}

/**
 * Opaque tokens, checked by asking the authorization server (RFC 7662 token introspection) with
 * the endpoint's own client credentials. Cache the answers in production.
 */
async function introspect(token: string): Promise<AuthInfo> {
  const credentials = `${process.env.INTROSPECTION_CLIENT_ID}:${process.env.INTROSPECTION_SECRET}`;
  const response = await fetch(INTROSPECTION_URL, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
    signal: AbortSignal.timeout(5000),
  });
  const answer = (await response.json()) as Introspection;
  if (!response.ok || answer.active !== true) {
    throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is not active.');
  }
  const audiences = answer.aud === undefined ? [] : [answer.aud].flat();
  return {
    token,
    clientId: answer.client_id ?? '',
    scopes: answer.scope?.split(' ').filter(Boolean) ?? [],
    // Required: a token without an expiry is refused.
    expiresAt: answer.exp,
    // Compared with `resource`: a token for another API is refused.
    ...(audiences.includes(RESOURCE) && { resource: new URL(RESOURCE) }),
    extra: { ...(answer.sub !== undefined && { subject: answer.sub }), claims: answer },
  };
}

export const opaqueTokens: McpAuthOptions = {
  issuers: 'https://sso.example.com',
  resource: RESOURCE,
  scopesSupported: ['billing:read', 'billing:write'],
  verifyAccessToken: introspect,
};
