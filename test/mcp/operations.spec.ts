/**
 * Resources, resource templates, prompts and completions over MCP, with the official clients of
 * both generations against `createMcpHttpHandler`: lists, reads (text, binary, template), a
 * missing resource, prompt messages (text, embedded resource, image), completions, the
 * capabilities declared only for what the application has, guards hiding from lists and
 * refusing reads, and the pipeline's hooks seeing every read.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  createToolInvoker,
  defineResource,
  defineResourceTemplate,
  definePrompt,
  defineRuntimeTool,
  type AfterToolCallEvent,
  type ToolGuard,
} from '../../lib/core/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { connectClient, GENERATIONS, type Generation } from './support.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const articles: Record<string, string> = {
  'reset-password': '# Reset a password',
  'vpn-setup': '# Set up the VPN',
  'invoice-vat': '# VAT on invoices',
};

const after: AfterToolCallEvent[] = [];
const hideSecret: ToolGuard = {
  canActivate: ({ tool, context }) =>
    tool.name !== 'secret' || (context as { role?: string }).role === 'admin',
  canList: (descriptor, context) =>
    descriptor.name !== 'secret' || (context as { role?: string }).role === 'admin',
};

function operations() {
  return [
    defineRuntimeTool({
      description: 'Ping',
      identity: { serviceName: 'health', action: 'ping', method: 'GET' },
      input: z.object({}),
      handler: () => ({ pong: true }),
    }),
    defineResource({
      uri: 'kb://handbook',
      name: 'handbook',
      title: 'Support handbook',
      description: 'How the desk works',
      mimeType: 'text/markdown',
      read: () => '# Handbook',
    }),
    defineResource({
      uri: 'kb://logo',
      name: 'logo',
      mimeType: 'image/png',
      read: () => PNG,
    }),
    defineResourceTemplate({
      uriTemplate: 'kb://articles/{slug}',
      name: 'kb-article',
      description: 'One knowledge-base article',
      mimeType: 'text/markdown',
      variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
      complete: {
        slug: (value) => Object.keys(articles).filter((slug) => slug.startsWith(value)),
      },
      read: ({ input }) => {
        const body = articles[input.slug];
        if (body === undefined) throw Object.assign(new Error('missing'), { status: 404 });
        return body;
      },
    }),
    defineResource({
      uri: 'kb://secret',
      name: 'secret',
      read: () => 'for admins',
    }),
    definePrompt({
      name: 'triage',
      description: 'Triage an article',
      args: z.object({ slug: z.string().describe('The article'), tone: z.string().optional() }),
      complete: { slug: (value) => Object.keys(articles).filter((slug) => slug.includes(value)) },
      get: ({ input }) => ({
        description: `Triage ${input.slug}`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: `kb://articles/${input.slug}`, text: articles[input.slug] ?? '' },
            },
          },
          {
            role: 'user',
            content: { type: 'text', text: `Triage it (${input.tone ?? 'plain'}).` },
          },
          {
            role: 'user',
            content: {
              type: 'image',
              data: Buffer.from(PNG).toString('base64'),
              mimeType: 'image/png',
            },
          },
        ],
      }),
    }),
  ];
}

let server: Server;
let url: string;
let toolsOnlyServer: Server;
let toolsOnlyUrl: string;

async function listen(handler: Parameters<typeof createServer>[1]) {
  const listening = createServer(handler);
  await new Promise<void>((done) => listening.listen(0, '127.0.0.1', done));
  return { listening, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}/mcp` };
}

beforeAll(async () => {
  const invoker = createToolInvoker(operations(), {
    guards: [hideSecret],
    hooks: { afterToolCall: (options) => void after.push(options) },
  });
  const served = await listen(
    createMcpHttpHandler(invoker, {
      context: (request) => ({ role: request.headers['x-role'] ?? 'guest' }),
    }),
  );
  ({ listening: server, url } = served);
  const toolsOnly = await listen(createMcpHttpHandler(createToolInvoker([operations()[0]])));
  ({ listening: toolsOnlyServer, url: toolsOnlyUrl } = toolsOnly);
});
afterAll(async () => {
  for (const listening of [server, toolsOnlyServer]) {
    await new Promise((done) => listening.close(done));
  }
});

/** The raw SDK client of a generation, for the methods the shared test client does not wrap. */
async function rawClient(
  generation: Generation,
  target = url,
  headers: Record<string, string> = {},
) {
  return (await connectClient(generation, target, headers)).raw;
}

describe.each(GENERATIONS)('resources and prompts with the %s client', (generation) => {
  it('lists resources and templates, reads text, bytes and a template, and refuses a missing one', async () => {
    const client = await rawClient(generation);
    try {
      const { resources } = await client.listResources();
      expect(resources).toEqual([
        {
          uri: 'kb://handbook',
          name: 'handbook',
          title: 'Support handbook',
          description: 'How the desk works',
          mimeType: 'text/markdown',
        },
        { uri: 'kb://logo', name: 'logo', description: 'logo', mimeType: 'image/png' },
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        {
          uriTemplate: 'kb://articles/{slug}',
          name: 'kb-article',
          description: 'One knowledge-base article',
          mimeType: 'text/markdown',
        },
      ]);
      expect((await client.readResource({ uri: 'kb://handbook' })).contents).toEqual([
        { uri: 'kb://handbook', mimeType: 'text/markdown', text: '# Handbook' },
      ]);
      expect((await client.readResource({ uri: 'kb://logo' })).contents).toEqual([
        { uri: 'kb://logo', mimeType: 'image/png', blob: Buffer.from(PNG).toString('base64') },
      ]);
      expect((await client.readResource({ uri: 'kb://articles/vpn-setup' })).contents).toEqual([
        { uri: 'kb://articles/vpn-setup', mimeType: 'text/markdown', text: '# Set up the VPN' },
      ]);
      await expect(client.readResource({ uri: 'kb://nothing' })).rejects.toMatchObject({
        code: -32602,
      });
      // Variables that do not parse are the caller's mistake: -32602 with the envelope's code.
      await expect(client.readResource({ uri: 'kb://articles/NOT_A_SLUG' })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await client.close();
    }
  });

  it('hides a resource from a caller its guard refuses, and refuses its read', async () => {
    const guest = await rawClient(generation);
    const admin = await rawClient(generation, url, { 'x-role': 'admin' });
    try {
      expect(
        (await guest.listResources()).resources.map((r: { name: string }) => r.name),
      ).not.toContain('secret');
      expect(
        (await admin.listResources()).resources.map((r: { name: string }) => r.name),
      ).toContain('secret');
      await expect(guest.readResource({ uri: 'kb://secret' })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('refused by a guard'),
      });
      expect((await admin.readResource({ uri: 'kb://secret' })).contents[0].text).toBe(
        'for admins',
      );
    } finally {
      await guest.close();
      await admin.close();
    }
  });

  it('lists and gets a prompt with embedded resource and image messages, and completes its argument', async () => {
    const client = await rawClient(generation);
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        {
          name: 'triage',
          description: 'Triage an article',
          arguments: [
            { name: 'slug', description: 'The article', required: true },
            { name: 'tone', required: false },
          ],
        },
      ]);
      const prompt = await client.getPrompt({ name: 'triage', arguments: { slug: 'vpn-setup' } });
      expect(prompt.description).toBe('Triage vpn-setup');
      expect(
        prompt.messages.map((message: { content: { type: string } }) => message.content.type),
      ).toEqual(['resource', 'text', 'image']);
      await expect(client.getPrompt({ name: 'triag', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown prompt "triag". Did you mean "triage"?'),
      });
      await expect(client.getPrompt({ name: 'triage', arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'triage' },
        argument: { name: 'slug', value: 'v' },
      });
      expect(completed.completion.values).toEqual(['vpn-setup', 'invoice-vat']);
      const templated = await client.complete({
        ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
        argument: { name: 'slug', value: 're' },
      });
      expect(templated.completion).toMatchObject({ values: ['reset-password'], hasMore: false });
    } finally {
      await client.close();
    }
  });

  it('declares resources, prompts and completions only where the application has them', async () => {
    const full = await rawClient(generation);
    const toolsOnly = await rawClient(generation, toolsOnlyUrl);
    try {
      if (generation === 'v1 (2025)') {
        expect(full.getServerCapabilities()).toMatchObject({
          resources: { subscribe: false, listChanged: false },
          prompts: { listChanged: false },
          completions: {},
        });
        expect(toolsOnly.getServerCapabilities().resources).toBeUndefined();
        expect(toolsOnly.getServerCapabilities().prompts).toBeUndefined();
        // A stateless endpoint pushes nothing: subscribing is acknowledged and changes nothing.
        await expect(full.subscribeResource({ uri: 'kb://handbook' })).resolves.toEqual({});
      } else {
        // The 2026 client asks the server what it offers (server/discover).
        expect((await full.discover()).capabilities).toMatchObject({
          resources: { subscribe: false, listChanged: false },
          prompts: { listChanged: false },
          completions: {},
        });
        const offered = (await toolsOnly.discover()).capabilities;
        expect([offered.resources, offered.prompts, offered.completions]).toEqual([
          undefined,
          undefined,
          undefined,
        ]);
      }
      // Without the capability: the 2025 server knows no such method; the 2026 client asks nothing.
      if (generation === 'v1 (2025)') {
        await expect(toolsOnly.listResources()).rejects.toMatchObject({ code: -32601 });
      } else {
        await expect(toolsOnly.listResources()).resolves.toEqual({ resources: [] });
      }
    } finally {
      await full.close();
      await toolsOnly.close();
    }
  });
});

it('every read and get runs through the pipeline: one afterToolCall each, with its kind and URI', async () => {
  after.length = 0;
  const client = await rawClient('v2 (2026-07-28)');
  try {
    await client.readResource({ uri: 'kb://articles/reset-password' });
    await client.getPrompt({ name: 'triage', arguments: { slug: 'vpn-setup' } });
  } finally {
    await client.close();
  }
  expect(
    after.map(({ call, result }) => ({ kind: call.kind, uri: call.uri, ok: result.ok })),
  ).toEqual([
    { kind: 'resource', uri: 'kb://articles/reset-password', ok: true },
    { kind: 'prompt', uri: undefined, ok: true },
  ]);
});
