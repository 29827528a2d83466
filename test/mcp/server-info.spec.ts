/**
 * `serverInfo` is the revision's whole `Implementation`: a `description`, a `websiteUrl` and
 * `icons` reach clients of both generations as they were given.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import { closeServer } from '../fixtures/mcp-http.js';

const SERVER_INFO = {
  name: 'billing',
  version: '2.1.0',
  title: 'Billing',
  description: 'Invoices and refunds of the shop',
  websiteUrl: 'https://billing.example.com',
  icons: [{ src: 'https://billing.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
};

const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => 'pong',
});

let server: Server;
let listener: McpRequestListener;
let url: string;

beforeAll(async () => {
  listener = createMcpHttpHandler(createToolInvoker([ping]), { serverInfo: SERVER_INFO });
  server = createServer((request, response) => void listener(request, response));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await closeServer(server);
  await listener.close();
});

describe('serverInfo', () => {
  it('reaches a 2025-era client in the initialize result', async () => {
    const client = new ClientV1({ name: 'server-info', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(url)));
    try {
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
    } finally {
      await client.close();
    }
  });

  it('reaches a 2026-07-28 client in every result, the direct answers included', async () => {
    const client = new ClientV2(
      { name: 'server-info', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new HttpV2(new URL(url)));
    try {
      const result: any = await client.callTool({ name: 'health_ping', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
      expect(client.getServerVersion()).toEqual(SERVER_INFO);
    } finally {
      await client.close();
    }
  });
});
