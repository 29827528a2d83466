/**
 * `serverInfo` is the revision's whole `Implementation`: a `description`, a `websiteUrl` and
 * `icons` reach clients of both generations as they were given.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { listenMcp } from '../fixtures/mcp-http.js';

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

let served: Awaited<ReturnType<typeof listenMcp>>;
let url: string;

beforeAll(async () => {
  served = await listenMcp(createToolInvoker([ping]), { serverInfo: SERVER_INFO });
  url = served.url;
});

afterAll(() => served.close());

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
