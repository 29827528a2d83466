/**
 * `resourceFromRequest`: the resource is the URL the request was made to (Host, and the scheme
 * the proxy says the client used), for the metadata, the challenge and the token's audience.
 */
import { describe, expect, it } from '@jest/globals';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { McpBearerAuth } from '../../lib/mcp/auth/bearer-auth.js';

const auth = new McpBearerAuth({
  issuers: 'https://auth.example.com',
  resourceFromRequest: true,
  verifyAccessToken: async (token): Promise<AuthInfo> => ({
    token,
    clientId: 'c',
    scopes: [],
    expiresAt: 4_102_444_800,
    // The token names the resource it was issued for.
    resource: new URL(token),
  }),
});

const request = (host: string, token?: string) => ({
  url: '/mcp?session=1',
  headers: {
    host,
    'x-forwarded-proto': 'https',
    ...(token && { authorization: `Bearer ${token}` }),
  },
});

describe('resourceFromRequest', () => {
  it('takes the resource from the request, with the forwarded scheme', async () => {
    expect(auth.resourceOf(request('api.example.com')).href).toBe('https://api.example.com/mcp');
    const refused = await auth.authenticate(request('api.example.com'));
    expect((refused as Response).headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const document = await auth.metadataResponse(
      new Request('http://api.example.com/.well-known/oauth-protected-resource/mcp', {
        headers: { 'x-forwarded-proto': 'https' },
      }),
    );
    expect(await document.json()).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
    });
  });

  it("accepts a token for the request's own resource only", async () => {
    const token = 'https://api.example.com/mcp';
    const accepted = await auth.authenticate(request('api.example.com', token));
    expect(accepted).toMatchObject({ clientId: 'c' });
    const elsewhere = await auth.authenticate(request('other.example.com', token));
    expect((elsewhere as Response).status).toBe(401);
  });
});
