/**
 * `_meta.securitySchemes` on `tools/list` entries, the convention OpenAI's Apps SDK (ChatGPT's
 * connectors) reads and `@rekog/mcp-nest` lists: `oauth2` with the scopes a call needs, on an
 * endpoint that signs callers in (every tool) or for a tool with scopes; merged after the tool's
 * own `_meta`, whose own `securitySchemes` win. Both eras, both paths, byte for byte.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { ToolsModule } from '../../lib/index.js';
import type { McpHttpHandlerOptions } from '../../lib/mcp/index.js';
import { TestApps } from '../fixtures/apps.js';
import { eraHeaders, listBody, listenMcp, post, type Era } from '../fixtures/mcp-http.js';
import { connectClient, GENERATIONS } from './support.js';

const RESOURCE = 'https://api.example.com/mcp';
const TOKEN = 'mcp:use,notes:read,notes:export,notes:write';

/** Signs in a token naming its scopes (`a,b`), for {@link RESOURCE}. */
const auth = {
  issuers: 'https://auth.example.com',
  resource: RESOURCE,
  requiredScopes: ['mcp:use'],
  verifyAccessToken: async (token: string): Promise<AuthInfo> => ({
    token,
    clientId: 'reader',
    scopes: token.split(','),
    expiresAt: 4_102_444_800,
    resource: new URL(RESOURCE),
  }),
} satisfies McpHttpHandlerOptions['auth'];

const tool = (action: string, more: object = {}) =>
  defineRuntimeTool({
    description: `The ${action} tool`,
    identity: { serviceName: 'notes', action, method: 'GET' },
    input: z.object({}),
    handler: () => 'done',
    ...more,
  });

const TOOLS = [
  tool('ping'),
  tool('read', { scopes: ['notes:read'] }),
  // Its own `_meta` first, then the derived schemes.
  tool('export', {
    scopes: ['notes:read', 'notes:export'],
    _meta: { 'openai/outputTemplate': 'ui://widget/notes.html' },
  }),
  // Its own schemes win: listed as it declares them.
  tool('write', {
    scopes: ['notes:write'],
    _meta: { securitySchemes: [{ type: 'noauth' }, { type: 'oauth2', scopes: ['notes:write'] }] },
  }),
];

const OWN_SCHEMES = {
  securitySchemes: [{ type: 'noauth' }, { type: 'oauth2', scopes: ['notes:write'] }],
};

/** Each tool's `_meta` on an endpoint with sign-in: every tool needs a token with `mcp:use`. */
const SIGNED_IN = {
  notes_ping: { securitySchemes: [{ type: 'oauth2', scopes: ['mcp:use'] }] },
  notes_read: { securitySchemes: [{ type: 'oauth2', scopes: ['mcp:use', 'notes:read'] }] },
  notes_export: {
    'openai/outputTemplate': 'ui://widget/notes.html',
    securitySchemes: [{ type: 'oauth2', scopes: ['mcp:use', 'notes:read', 'notes:export'] }],
  },
  notes_write: OWN_SCHEMES,
};

/** Each tool's `_meta` without sign-in: a tool without scopes carries none. */
const OPEN = {
  notes_ping: undefined,
  notes_read: { securitySchemes: [{ type: 'oauth2', scopes: ['notes:read'] }] },
  notes_export: {
    'openai/outputTemplate': 'ui://widget/notes.html',
    securitySchemes: [{ type: 'oauth2', scopes: ['notes:read', 'notes:export'] }],
  },
  notes_write: OWN_SCHEMES,
};

const metaByName = (tools: Array<{ name: string; _meta?: unknown }>) =>
  Object.fromEntries(tools.map(({ name, _meta }) => [name, _meta]));

/** The raw `tools/list` answer of an era: its body's text. */
async function rawList(url: string, era: Era, headers: Record<string, string> = {}) {
  const answer = await post(url, listBody(era, 3), {
    ...eraHeaders(era, 'tools/list'),
    ...headers,
  });
  expect(answer.status).toBe(200);
  return answer.text;
}

const BEARER = { authorization: `Bearer ${TOKEN}` };
const PATHS = ['direct answers', 'the SDK'] as const;
type Served = Awaited<ReturnType<typeof listenMcp>>;

describe('securitySchemes on an endpoint that signs callers in', () => {
  const served = {} as Record<(typeof PATHS)[number], Served>;
  beforeAll(async () => {
    const invoker = createToolInvoker(TOOLS);
    served['direct answers'] = await listenMcp(invoker, { auth });
    served['the SDK'] = await listenMcp(invoker, { auth, directAnswers: false });
  });
  afterAll(async () => {
    for (const path of PATHS) await served[path]?.close();
  });

  describe.each(PATHS)('through %s', (path) => {
    it.each(GENERATIONS)('lists oauth2 on every tool to a %s client', async (generation) => {
      const client = await connectClient(generation, served[path].url, BEARER);
      try {
        expect(metaByName((await client.listTools()).tools)).toEqual(SIGNED_IN);
      } finally {
        await client.close();
      }
    });
  });

  it.each<Era>(['legacy', 'modern'])(
    'writes the same %s-era bytes on the direct answers as the SDK',
    async (era) => {
      const direct = await rawList(served['direct answers'].url, era, BEARER);
      expect(direct).toBe(await rawList(served['the SDK'].url, era, BEARER));
      expect(direct).toContain(
        '"_meta":{"securitySchemes":[{"type":"oauth2","scopes":["mcp:use","notes:read"]}]}',
      );
    },
  );
});

describe('securitySchemes on an endpoint without sign-in', () => {
  const served = {} as Record<(typeof PATHS)[number], Served>;
  beforeAll(async () => {
    const invoker = createToolInvoker(TOOLS);
    // The application signs callers in itself: its resolver puts the principal in the context.
    const context = () => ({
      principal: { clientId: 'reader', scopes: ['notes:read', 'notes:export', 'notes:write'] },
    });
    served['direct answers'] = await listenMcp(invoker, { context });
    served['the SDK'] = await listenMcp(invoker, { context, directAnswers: false });
  });
  afterAll(async () => {
    for (const path of PATHS) await served[path]?.close();
  });

  describe.each(PATHS)('through %s', (path) => {
    it.each(GENERATIONS)(
      'lists oauth2 on the tools with scopes only, to a %s client',
      async (generation) => {
        const client = await connectClient(generation, served[path].url);
        try {
          const { tools } = await client.listTools();
          expect(metaByName(tools)).toEqual(OPEN);
          expect(tools.find(({ name }) => name === 'notes_ping')).not.toHaveProperty('_meta');
        } finally {
          await client.close();
        }
      },
    );
  });

  it.each<Era>(['legacy', 'modern'])(
    'writes the same %s-era bytes on the direct answers as the SDK',
    async (era) => {
      const direct = await rawList(served['direct answers'].url, era);
      expect(direct).toBe(await rawList(served['the SDK'].url, era));
      expect(direct).toContain(
        '"_meta":{"openai/outputTemplate":"ui://widget/notes.html","securitySchemes":[{"type":"oauth2","scopes":["notes:read","notes:export"]}]}',
      );
    },
  );
});

describe('securitySchemes in a Nest app', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('reach clients of both eras from ToolsModule.forRoot with mcp.auth', async () => {
    const { url } = await apps.listen({
      imports: [ToolsModule.forRoot({ registry: TOOLS, mcp: { auth } })],
    });
    for (const generation of GENERATIONS) {
      const client = await connectClient(generation, `${url}/mcp`, BEARER);
      try {
        expect(metaByName((await client.listTools()).tools)).toEqual(SIGNED_IN);
      } finally {
        await client.close();
      }
    }
  });
});
