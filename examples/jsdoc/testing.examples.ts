/**
 * The `@example` blocks of toolwright/testing's declarations: a real MCP client in memory, the
 * in-memory `fetch`, a test issuer's principals, and class tools bound to instances. Each
 * `//#region <key>` is the example of the declaration it names, copied into its JSDoc by
 * `node scripts/sync-jsdoc-examples.mjs --write`; what an example uses without declaring it is
 * stubbed here.
 */
import { expect } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { createToolInvoker } from 'toolwright/core';
import {
  bindInstances,
  connectMcpClient,
  createInMemoryFetch,
  createTestIssuer,
} from 'toolwright/testing';

declare const app: INestApplication;
declare class CatalogService {}
declare class CatalogTools {
  constructor(catalog: CatalogService);
}
declare const fakeCatalogService: CatalogService;

export async function client() {
  //#region connectMcpClient
  const client = await connectMcpClient(app, {
    protocolVersion: '2025-11-25',
    headers: { 'x-tenant-id': 'acme' },
    elicitation: () => ({ action: 'accept', content: { confirm: true } }),
  });
  const { tools } = await client.listTools();
  await client.close();
  //#endregion
  return tools;
}

export async function inMemoryFetch() {
  //#region createInMemoryFetch
  const fetch = createInMemoryFetch(app);
  const answer = await fetch('http://localhost/mcp', { method: 'GET' });
  expect(answer.status).toBe(405);
  //#endregion
}

export async function issuer() {
  //#region createTestIssuer
  const issuer = createTestIssuer({ resource: 'https://api.example.com/mcp' });
  // In the test's module: ToolsModule.forRoot({ registry, mcp: { auth: issuer.auth() } })
  const token = issuer.token({ subject: 'ada', scopes: ['billing:read'] });
  const client = await connectMcpClient(app, { headers: { authorization: `Bearer ${token}` } });
  //#endregion
  return client;
}

export function binding() {
  //#region bindInstances
  const invoker = createToolInvoker([CatalogTools], {
    bind: bindInstances(new CatalogTools(fakeCatalogService)),
  });
  //#endregion
  return invoker;
}
