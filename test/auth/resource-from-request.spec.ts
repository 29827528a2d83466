/**
 * `resourceFromRequest`: the resource is the URL the request was made to (Host, and the scheme
 * the proxy says the client used), for the metadata, the challenge and the token's audience; in
 * the sign-in itself, then through a Nest app on both adapters.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule } from '../../lib/index.js';
import { McpBearerAuth } from '../../lib/mcp/auth/bearer-auth.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { callBody, eraHeaders, raw, toolPayload } from '../fixtures/mcp-http.js';

const options = {
  issuers: 'https://auth.example.com',
  resourceFromRequest: true,
  verifyAccessToken: async (token: string): Promise<AuthInfo> => ({
    token,
    clientId: 'c',
    scopes: [],
    expiresAt: 4_102_444_800,
    // The token names the resource it was issued for.
    resource: new URL(token),
  }),
} as const;
const auth = new McpBearerAuth(options);

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

describe.each(ADAPTERS)('resourceFromRequest over HTTP (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  const ping = defineRuntimeTool({
    description: 'Ping',
    identity: { serviceName: 'health', action: 'ping', method: 'GET' },
    input: z.object({}),
    handler: () => ({ pong: true }),
  });

  it('challenges with the metadata of the Host asked for, and takes only a token for it', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [ping],
            mcp: { auth: options, allowedHosts: ['api.example.com', 'other.example.com'] },
          }),
        ],
      },
      adapter,
    );
    const post = (host: string, token?: string) =>
      raw(`${url}/mcp`, {
        rawHost: true,
        headers: {
          host,
          'x-forwarded-proto': 'https',
          ...eraHeaders('legacy'),
          ...(token && { authorization: `Bearer ${token}` }),
        },
        body: callBody('legacy', 'health_ping', {}),
      });
    const refused = await post('api.example.com');
    expect({ status: refused.status, challenge: refused.headers['www-authenticate'] }).toEqual({
      status: 401,
      challenge:
        'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"',
    });
    const metadata = await raw(`${url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'GET',
      rawHost: true,
      headers: { host: 'api.example.com', 'x-forwarded-proto': 'https' },
    });
    expect(JSON.parse(metadata.text)).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
    });
    const token = 'https://api.example.com/mcp';
    expect(toolPayload(await post('api.example.com', token))).toEqual({
      isError: false,
      json: { pong: true },
    });
    expect((await post('other.example.com', token)).status).toBe(401);
  });
});
