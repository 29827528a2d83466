import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ToolsModule } from 'toolwright';
import { connectMcpClient, createInMemoryFetch, createTestIssuer } from 'toolwright/testing';
import { exportLedger } from '../authorization/ledger.tool.js';

// Sign-in without an authorization server: the test issuer's tokens, verified by the endpoint.
describe('the signed-in MCP endpoint, in memory', () => {
  const issuer = createTestIssuer({ resource: 'https://api.example.com/mcp' });
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ToolsModule.forRoot({ registry: [exportLedger], mcp: { auth: issuer.auth() } })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
  });
  afterAll(() => app?.close());

  it('answers 401 with the challenge without a token', async () => {
    const answer = await createInMemoryFetch(app)('http://localhost/mcp', { method: 'POST' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('runs the call as the principal of the token', async () => {
    const token = issuer.token({ subject: 'ada', scopes: ['billing:read', 'billing:export'] });
    const client = await connectMcpClient(app, { headers: { authorization: `Bearer ${token}` } });
    const result = await client.callTool({
      name: 'billing_export_ledger',
      arguments: { month: '2026-03' },
    });
    expect(result.structuredContent).toEqual({
      url: 'https://files.example.com/ledger-2026-03.csv',
    });
    await client.close();
  });
});
