/**
 * Two signed-in MCP servers in one application (`mcp.endpoints`), against a real authorization
 * server (oidc-provider, in-process): each serves its own protected resource metadata and its
 * own challenges, and a token issued for one endpoint's resource is refused by the other. On
 * Express and Fastify.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule } from '../../lib/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { eraHeaders, listBody, post, raw } from '../fixtures/mcp-http.js';

const NOTES = 'https://api.example.com/mcp';
const ADMIN = 'https://api.example.com/admin/mcp';
const CLIENT = { clientId: 'ops', clientSecret: 'ops-secret' };

const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});
const reindex = defineRuntimeTool({
  description: 'Rebuild the index',
  identity: { serviceName: 'admin', action: 'reindex', method: 'POST' },
  input: z.object({}),
  scopes: ['admin'],
  handler: () => ({ reindexed: true }),
});

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: [NOTES, ADMIN],
    scopes: ['notes', 'admin'],
    clients: [CLIENT],
  });
});
afterAll(() => as?.close());

const apps = new TestApps();
afterEach(() => apps.closeAll());

describe.each(ADAPTERS)('two signed-in MCP servers in one application (%s)', (adapter) => {
  async function boot() {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [ping, reindex],
            mcp: {
              select: { services: ['health'] },
              auth: { issuers: as.issuer, resource: NOTES, scopesSupported: ['notes'] },
              endpoints: [
                {
                  path: '/admin/mcp',
                  select: { services: ['admin'] },
                  auth: { issuers: as.issuer, resource: ADMIN, scopesSupported: ['admin'] },
                },
              ],
            },
          }),
        ],
      },
      adapter,
    );
    return url;
  }

  const list = (url: string, token?: string) =>
    post(url, listBody('legacy'), {
      ...eraHeaders('legacy', 'tools/list'),
      ...(token && { authorization: `Bearer ${token}` }),
    });

  it('refuses a token of one endpoint on the other, each with its own challenge and metadata', async () => {
    const url = await boot();
    const notesToken = (
      await as.clientCredentialsToken(CLIENT, { resource: NOTES, scope: 'notes' })
    ).access_token;
    const adminToken = (
      await as.clientCredentialsToken(CLIENT, { resource: ADMIN, scope: 'admin' })
    ).access_token;
    const adminMetadata = 'https://api.example.com/.well-known/oauth-protected-resource/admin/mcp';
    const notesMetadata = 'https://api.example.com/.well-known/oauth-protected-resource/mcp';

    const listed = await list(`${url}/mcp`, notesToken);
    expect(listed.status).toBe(200);
    expect(listed.messages?.[0].result.tools.map((t: { name: string }) => t.name)).toEqual([
      'health_ping',
    ]);

    // The notes endpoint's token, on the admin endpoint: refused, with the admin's challenge.
    const refused = await list(`${url}/admin/mcp`, notesToken);
    expect(refused.status).toBe(401);
    const challenge = String(refused.headers['www-authenticate']);
    expect(challenge).toContain(`resource_metadata="${adminMetadata}"`);
    expect(challenge).toContain('error="invalid_token"');
    // And the other way round.
    const back = await list(`${url}/mcp`, adminToken);
    expect(back.status).toBe(401);
    expect(String(back.headers['www-authenticate'])).toContain(
      `resource_metadata="${notesMetadata}"`,
    );

    const admin = await list(`${url}/admin/mcp`, adminToken);
    expect(admin.status).toBe(200);
    expect(admin.messages?.[0].result.tools.map((t: { name: string }) => t.name)).toEqual([
      'admin_reindex',
    ]);

    // No token at all: each endpoint names its own metadata.
    const anonymous = await list(`${url}/admin/mcp`);
    expect(anonymous.status).toBe(401);
    expect(String(anonymous.headers['www-authenticate'])).toContain(adminMetadata);

    // Each metadata document names its own resource and scopes.
    const adminDocument = await raw(`${url}/.well-known/oauth-protected-resource/admin/mcp`, {
      method: 'GET',
    });
    expect(JSON.parse(adminDocument.text)).toMatchObject({
      resource: ADMIN,
      authorization_servers: [as.issuer],
      scopes_supported: ['admin'],
    });
    const notesDocument = await raw(`${url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'GET',
    });
    expect(JSON.parse(notesDocument.text)).toMatchObject({
      resource: NOTES,
      scopes_supported: ['notes'],
    });
  });
});
