import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppModule } from '../getting-started/app.module.js';

describe('the MCP endpoint', () => {
  let app: INestApplication;
  let client: Client;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    // forceCloseConnections: the client's keep-alive sockets must not hold up app.close().
    app = moduleRef.createNestApplication({ logger: false, forceCloseConnections: true });
    await app.listen(0, '127.0.0.1'); // port 0: any free port
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${await app.getUrl()}/mcp`), {
        requestInit: { headers: { 'x-tenant-id': 'acme' } },
      }),
    );
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
