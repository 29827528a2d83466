import type { McpAuthOptions } from 'toolwright';

const KEYCLOAK_ISSUER = 'https://sso.example.com/realms/billing';
const AUTH0_ISSUER = 'https://example-tenant.eu.auth0.com/';

/**
 * Keycloak: the realm is the issuer (no trailing slash). Tokens name the MCP URL in `aud`
 * through an Audience mapper; the scopes are client scopes.
 */
export const keycloak: McpAuthOptions = {
  issuers: KEYCLOAK_ISSUER,
  resource: 'https://api.example.com/mcp',
  scopesSupported: ['billing:read', 'billing:write'],
};

/**
 * Auth0: the tenant's domain, with its trailing slash, is the issuer. The API's identifier is
 * the MCP URL, so it is the tokens' audience; its permissions are the scopes.
 */
export const auth0: McpAuthOptions = {
  issuers: AUTH0_ISSUER,
  resource: 'https://api.example.com/mcp',
  scopesSupported: ['billing:read', 'billing:write'],
};

/** Both at once: a token of either is accepted; the metadata names both. */
export const both: McpAuthOptions = {
  issuers: [KEYCLOAK_ISSUER, AUTH0_ISSUER],
  resource: 'https://api.example.com/mcp',
  scopesSupported: ['billing:read', 'billing:write'],
};
