import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/client';
import { connectMcpClient, type McpTestProtocolVersion } from 'toolwright/testing';
import { AppModule } from '../getting-started/app.module.js';

// A real MCP client, in memory: no port, the app's whole HTTP pipeline, both protocol revisions.
describe.each<McpTestProtocolVersion>(['2026-07-28', '2025-11-25'])('MCP %s', (protocolVersion) => {
  let app: INestApplication;
  let client: Client;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // No listen(): connectMcpClient initialises the app and talks to it in memory.
    client = await connectMcpClient(app, {
      protocolVersion,
      headers: { 'x-tenant-id': 'acme' }, // read by AppModule's context resolver
    });
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('lists the tools with their annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'billing_void_invoice')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

  it('calls a tool: structuredContent carries the output', async () => {
    const result = await client.callTool({
      name: 'billing_get_invoice',
      arguments: { id: 'inv_1' },
    });
    expect(result.structuredContent).toEqual({ id: 'inv_1', amount: 120, status: 'open' });
  });

  it('answers a failure as an isError result with the JSON envelope', async () => {
    const result = await client.callTool({
      name: 'billing_get_invoice',
      arguments: { id: 'nope' },
    });
    expect(result.isError).toBe(true);
    const [block] = result.content as { type: 'text'; text: string }[];
    expect(JSON.parse(block.text)).toMatchObject({ error: 'NOT_FOUND', retryable: false });
  });
});
