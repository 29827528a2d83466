import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ToolsModule } from 'toolwright';
// A real authorization server, in-process (oidc-provider): copy it from the repository's sample.
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../../sample/oauth/authorization-server.js';
import { exportLedger } from './ledger.tool.js';

const RESOURCE = 'https://api.example.com/mcp';
const CLIENT = { clientId: 'ci', clientSecret: 'ci-secret' };

describe('the signed-in MCP endpoint', () => {
  let as: AuthorizationServer;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    as = await startAuthorizationServer({
      resources: [RESOURCE],
      scopes: ['billing:read', 'billing:export'],
      clients: [CLIENT],
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ToolsModule.forRoot({
          registry: [exportLedger],
          mcp: { auth: { issuers: as.issuer, resource: RESOURCE } },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false, forceCloseConnections: true });
    await app.listen(0, '127.0.0.1');
    url = `${await app.getUrl()}/mcp`;
  });
  afterAll(async () => {
    await app?.close();
    await as?.close();
  });

  /** A tools/call of exportLedger with a client credentials token for `scope`. */
  async function exportWith(scope: string) {
    const { access_token } = await as.clientCredentialsToken(CLIENT, { resource: RESOURCE, scope });
    return fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'billing_export_ledger', arguments: { month: '2026-03' } },
      }),
    });
  }

  it('answers 401 without a token', async () => {
    const answer = await fetch(url, { method: 'POST' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('runs the call for a token with the scopes, and challenges one without', async () => {
    expect((await exportWith('billing:read billing:export')).status).toBe(200);
    const refused = await exportWith('billing:read');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });
});
