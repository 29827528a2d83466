/**
 * `mcp.cacheHints`: the 2026-07-28 cache hints (`ttlMs`, `cacheScope`) of each list, on the
 * direct answers and on the SDK's path alike, byte for byte; never on the 2025 revisions;
 * checked at bootstrap, and refused as `public` on a list that depends on the caller.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import {
  createToolInvoker,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineRuntimeTool,
  ToolsConfigurationError,
} from '../../lib/core/index.js';
import { ToolsModule } from '../../lib/index.js';
import { createMcpHttpHandler, serveStdio } from '../../lib/mcp/index.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import {
  resolveMcpEndpointOptions,
  type McpEndpointOptions,
} from '../../lib/mcp/endpoint-options.js';
import { TestApps } from '../fixtures/apps.js';
import { eraHeaders, listenMcp, MODERN_META, post } from '../fixtures/mcp-http.js';

const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => 'pong',
});

/** A tool only a caller holding `notes:read` sees: the tools list depends on the caller. */
const notes = defineRuntimeTool({
  description: 'Read the notes',
  identity: { serviceName: 'notes', action: 'read', method: 'GET' },
  input: z.object({}),
  scopes: ['notes:read'],
  handler: () => ['first note'],
});

function operations(scopes?: { resource?: string[]; prompt?: string[] }) {
  return [
    defineResource({
      uri: 'kb://handbook',
      name: 'handbook',
      read: () => '# Handbook',
      ...(scopes?.resource && { scopes: scopes.resource }),
    }),
    defineResourceTemplate({
      uriTemplate: 'kb://articles/{slug}',
      name: 'kb-article',
      variables: z.object({ slug: z.string() }),
      read: ({ input }) => `# ${input.slug}`,
    }),
    definePrompt({
      name: 'triage',
      description: 'Triage an article',
      args: z.object({ slug: z.string() }),
      get: ({ input }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Triage ${input.slug}.` } }],
      }),
      ...(scopes?.prompt && { scopes: scopes.prompt }),
    }),
  ];
}

const HINTS = {
  tools: { ttlMs: 60_000, cacheScope: 'public' },
  resources: { ttlMs: 5_000 },
  resourceTemplates: { cacheScope: 'public' },
  prompts: { ttlMs: 1_000, cacheScope: 'private' },
} as const;

/** What each list's 2026-era result carries with {@link HINTS}: a field left out is the default. */
const EXPECTED = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 5_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 0, cacheScope: 'public' },
  'prompts/list': { ttlMs: 1_000, cacheScope: 'private' },
} as const;
type ListMethod = keyof typeof EXPECTED;
const LISTS = Object.keys(EXPECTED) as ListMethod[];

/** A 2026-07-28 client, its requests counted. */
async function modernClient(url: string, headers: Record<string, string> = {}) {
  const sent: string[] = [];
  const client = new ClientV2(
    { name: 'cache-hints', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const counting = (input: string | URL | Request, init?: RequestInit) => {
    sent.push(new Headers(init?.headers).get('mcp-method') ?? '?');
    return fetch(input, init);
  };
  await client.connect(new HttpV2(new URL(url), { fetch: counting, requestInit: { headers } }));
  return { client, sent };
}

/** Each list of a 2026-07-28 client, as its result came. */
async function modernLists(client: ClientV2): Promise<Record<ListMethod, any>> {
  return {
    'tools/list': await client.listTools(),
    'resources/list': await client.listResources(),
    'resources/templates/list': await client.listResourceTemplates(),
    'prompts/list': await client.listPrompts(),
  };
}

/** The raw answer of a 2026-era list request: its body's text. */
async function rawList(url: string, method: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { _meta: MODERN_META } });
  const answer = await post(url, body, { ...eraHeaders('modern', method), ...headers });
  expect(answer.status).toBe(200);
  return answer.text;
}

const PATHS = ['direct answers', 'the SDK'] as const;

describe('the cache hints of each list', () => {
  const served: Record<(typeof PATHS)[number], Awaited<ReturnType<typeof listenMcp>>> = {} as never;

  beforeAll(async () => {
    const invoker = createToolInvoker([ping, ...operations()]);
    served['direct answers'] = await listenMcp(invoker, { cacheHints: HINTS });
    served['the SDK'] = await listenMcp(invoker, { cacheHints: HINTS, directAnswers: false });
  });
  afterAll(async () => {
    for (const path of PATHS) await served[path]?.close();
  });

  it.each(PATHS)('reach a 2026-07-28 client through %s, and never a 2025-era one', async (path) => {
    const { client } = await modernClient(served[path].url);
    try {
      const lists = await modernLists(client);
      for (const method of LISTS) expect(lists[method]).toMatchObject(EXPECTED[method]);
    } finally {
      await client.close();
    }
    const legacy = new ClientV1({ name: 'cache-hints', version: '1.0.0' });
    await legacy.connect(new HttpV1(new URL(served[path].url)));
    try {
      const tools = await legacy.listTools();
      expect(tools.tools.map(({ name }) => name)).toEqual(['health_ping']);
      expect(tools).not.toHaveProperty('ttlMs');
      expect(tools).not.toHaveProperty('cacheScope');
    } finally {
      await legacy.close();
    }
  });

  it('are the same bytes on the direct answers as on the SDK', async () => {
    for (const method of LISTS) {
      const direct = await rawList(served['direct answers'].url, method);
      expect(direct).toBe(await rawList(served['the SDK'].url, method));
      const { ttlMs, cacheScope } = EXPECTED[method];
      expect(direct).toContain(
        `"resultType":"complete","ttlMs":${ttlMs},"cacheScope":"${cacheScope}"`,
      );
    }
  });

  it("let the official client serve a list from its cache for the list's ttlMs", async () => {
    const { client, sent } = await modernClient(served['direct answers'].url);
    try {
      await client.listTools();
      await client.listTools();
      // The prompts list is kept for a second: the second listing is the client's own.
      await client.listPrompts();
      await client.listPrompts();
      expect(sent.filter((method) => method === 'tools/list')).toHaveLength(1);
      expect(sent.filter((method) => method === 'prompts/list')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('a list that depends on the caller', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it.each([
    ['tools', [notes, ...operations()]],
    ['resources', [ping, ...operations({ resource: ['kb:read'] })]],
    ['resourceTemplates', [ping, ...operations({ resource: ['kb:read'] })]],
    ['prompts', [ping, ...operations({ prompt: ['kb:read'] })]],
  ] as const)('refuses a public cache hint on the %s list', (list, declared) => {
    const invoker = createToolInvoker([...declared]);
    const create = () =>
      createMcpHttpHandler(invoker, { cacheHints: { [list]: { cacheScope: 'public' } } });
    expect(create).toThrow(ToolsConfigurationError);
    expect(create).toThrow(MCP_MESSAGES.cacheHintPublicPerCaller(list));
    // Over stdio too, where the lists are the same.
    expect(() => serveStdio(invoker, { cacheHints: { [list]: { cacheScope: 'public' } } })).toThrow(
      MCP_MESSAGES.cacheHintPublicPerCaller(list),
    );
  });

  it.each(PATHS)('keeps a private hint, on the filtered list through %s', async (path) => {
    const invoker = createToolInvoker([ping, notes]);
    const served = await listenMcp(invoker, {
      cacheHints: { tools: { ttlMs: 30_000 } },
      directAnswers: path === 'direct answers',
      context: () => ({ principal: { clientId: 'reader', scopes: ['notes:read'] } }),
    });
    try {
      const { client } = await modernClient(served.url);
      try {
        const tools = await client.listTools();
        expect(tools.tools.map(({ name }) => name)).toEqual(['health_ping', 'notes_read']);
        expect(tools).toMatchObject({ ttlMs: 30_000, cacheScope: 'private' });
      } finally {
        await client.close();
      }
    } finally {
      await served.close();
    }
  });

  it('fails the Nest bootstrap with a public hint, naming the fix', async () => {
    const app = await apps.create({
      imports: [
        ToolsModule.forRoot({
          registry: [ping, notes],
          mcp: { cacheHints: { tools: { ttlMs: 60_000, cacheScope: 'public' } } },
        }),
      ],
    });
    const init = app.init();
    await expect(init).rejects.toThrow(ToolsConfigurationError);
    await expect(init).rejects.toThrow(MCP_MESSAGES.cacheHintPublicPerCaller('tools'));
  });
});

describe('the cacheHints option', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it.each<[McpEndpointOptions['cacheHints'], string]>([
    [{ tools: { ttlMs: -1 } }, MCP_MESSAGES.cacheHintTtl('tools', -1)],
    [{ prompts: { ttlMs: 1.5 } }, MCP_MESSAGES.cacheHintTtl('prompts', 1.5)],
    [{ resources: { ttlMs: '60000' as never } }, MCP_MESSAGES.cacheHintTtl('resources', '60000')],
    [{ tools: { ttlMs: Number.NaN } }, MCP_MESSAGES.cacheHintTtl('tools', Number.NaN)],
    [
      { resourceTemplates: { cacheScope: 'shared' as never } },
      MCP_MESSAGES.cacheHintScope('resourceTemplates', 'shared'),
    ],
    [{ tool: { ttlMs: 1 } } as never, MCP_MESSAGES.cacheHintList('tool')],
    [{ tools: { ttl: 1 } } as never, MCP_MESSAGES.cacheHintKey('tools', 'ttl')],
    [{ tools: 60_000 } as never, MCP_MESSAGES.cacheHintNotObject('tools', 60_000)],
    ['public' as never, MCP_MESSAGES.cacheHintsNotObject('public')],
  ])('refuses %j at bootstrap', (cacheHints, message) => {
    const resolve = () => resolveMcpEndpointOptions({ cacheHints });
    expect(resolve).toThrow(ToolsConfigurationError);
    expect(resolve).toThrow(message);
    expect(() => createMcpHttpHandler(createToolInvoker([ping]), { cacheHints })).toThrow(message);
    expect(() => ToolsModule.forRoot({ registry: [ping], mcp: { cacheHints } })).toThrow(message);
  });

  it('reaches 2026-07-28 clients of a Nest app from ToolsModule.forRoot', async () => {
    const { url } = await apps.listen({
      imports: [
        ToolsModule.forRoot({
          registry: [ping],
          mcp: { cacheHints: { tools: { ttlMs: 60_000, cacheScope: 'public' } } },
        }),
      ],
    });
    const { client } = await modernClient(`${url}/mcp`);
    try {
      expect(await client.listTools()).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    } finally {
      await client.close();
    }
    expect(await rawList(`${url}/mcp`, 'tools/list')).toContain(
      '"ttlMs":60000,"cacheScope":"public"',
    );
  });
});
