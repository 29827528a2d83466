/**
 * What a tool's result reads as on MCP: a string from a tool without an output schema is its
 * text as it is; anything else (an object, a number, a string a schema declares) is JSON. Both
 * client generations, over `createMcpHttpHandler`.
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

const tool = (action: string, output: z.ZodType | undefined, answer: unknown) =>
  defineRuntimeTool({
    description: `Answer ${action}`,
    identity: { serviceName: 'text', action, method: 'GET' },
    input: z.object({}),
    ...(output && { output }),
    handler: () => answer,
  });

const TOOLS = [
  tool('plain', undefined, 'Admin action on "db"'),
  tool('empty', undefined, ''),
  tool('object', undefined, { done: true }),
  tool('number', undefined, 42),
  tool('declared', z.string(), 'declared text'),
];

const EXPECTED: Record<string, string> = {
  text_plain: 'Admin action on "db"',
  text_empty: '',
  text_object: '{"done":true}',
  text_number: '42',
  text_declared: '"declared text"',
};

let served: Awaited<ReturnType<typeof listenMcp>>;
let url: string;

beforeAll(async () => {
  served = await listenMcp(createToolInvoker(TOOLS));
  url = served.url;
});

afterAll(() => served.close());

const clients = {
  '2025-11-25 (SDK 1.x)': async () => {
    const client = new ClientV1({ name: 'text-results', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(url)));
    return client;
  },
  '2026-07-28 (SDK 2.x)': async () => {
    const client = new ClientV2(
      { name: 'text-results', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new HttpV2(new URL(url)));
    return client;
  },
};

describe.each(Object.keys(clients))('a tool result read by a %s client', (era) => {
  it.each(Object.keys(EXPECTED))('%s', async (name) => {
    const client = await clients[era as keyof typeof clients]();
    try {
      const result: any = await client.callTool({ name, arguments: {} });
      expect(result.isError ?? false).toBe(false);
      expect(result.content).toEqual([{ type: 'text', text: EXPECTED[name] }]);
    } finally {
      await client.close();
    }
  });
});
