/**
 * Several MCP servers in one application (`mcp.endpoints`): each at its own path with its own
 * selection of tools, resources and prompts (by name, class or service) and its own server
 * info; all through the one runner, so the in-process invoker sees every tool. The bootstrap
 * refuses what cannot work. On Express and Fastify, with forRoot and forRootAsync.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import {
  defineRuntimeTool,
  Prompt,
  serveAppStdio,
  Tool,
  ToolEvents,
  ToolFactory,
  ToolInvoker,
  ToolsConfigurationError,
  ToolsModule,
  type McpOptions,
  type ToolCallEvent,
} from '../../lib/index.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { eraHeaders, post } from '../fixtures/mcp-http.js';

@ToolFactory({ serviceName: 'admin' })
@Injectable()
class AdminTools {
  @Tool({
    action: 'reindex',
    method: 'POST',
    description: 'Rebuild the index',
    input: z.object({}),
  })
  reindex() {
    return { reindexed: true };
  }

  @Prompt({ name: 'audit_summary', description: 'Summarise the audit log', args: z.object({}) })
  audit() {
    return 'Summarise the audit log.';
  }
}

@Module({ providers: [AdminTools], exports: [AdminTools] })
class AdminModule {}

const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});
const listNotes = defineRuntimeTool({
  description: 'List the notes',
  identity: { serviceName: 'notes', action: 'list', method: 'GET' },
  input: z.object({}),
  handler: () => ({ notes: ['a'] }),
});

const registry = [ping, listNotes, AdminTools];

/** The public server at /mcp without the admin tools, the admin server at /admin/mcp. */
const MCP: McpOptions = {
  serverInfo: { name: 'public', version: '1.0.0' },
  select: { exclude: ['admin_reindex', 'audit_summary'] },
  endpoints: [
    {
      path: '/admin/mcp',
      select: { classes: [AdminTools], include: ['health_ping'] },
      serverInfo: { name: 'admin', version: '2.0.0' },
      instructions: 'Administration only.',
    },
  ],
};

const apps = new TestApps();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await apps.closeAll();
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'multi', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

const names = (list: Array<{ name: string }>) => list.map(({ name }) => name).sort();

describe.each(ADAPTERS)('several MCP servers in one application (%s)', (adapter) => {
  it('serves each endpoint its own selection and server info, through one runner', async () => {
    const { app, url } = await apps.listen(
      { imports: [AdminModule, ToolsModule.forRoot({ registry, mcp: MCP })] },
      adapter,
    );
    const calls: ToolCallEvent[] = [];
    app.get(ToolEvents).events$.subscribe((event) => void calls.push(event));

    const main = await connect(`${url}/mcp`);
    const admin = await connect(`${url}/admin/mcp`);
    expect(main.getServerVersion()).toMatchObject({ name: 'public', version: '1.0.0' });
    expect(admin.getServerVersion()).toMatchObject({ name: 'admin', version: '2.0.0' });
    expect(admin.getInstructions()).toBe('Administration only.');
    expect(names((await main.listTools()).tools)).toEqual(['health_ping', 'notes_list']);
    expect(names((await admin.listTools()).tools)).toEqual(['admin_reindex', 'health_ping']);
    expect(names((await admin.listPrompts()).prompts)).toEqual(['audit_summary']);
    expect(main.getServerCapabilities()?.prompts).toBeUndefined();

    // A tool on both endpoints runs on both; one left out of an endpoint does not exist there.
    expect((await main.callTool({ name: 'health_ping', arguments: {} })).isError).toBeFalsy();
    expect((await admin.callTool({ name: 'admin_reindex', arguments: {} })).isError).toBeFalsy();
    await expect(main.callTool({ name: 'admin_reindex', arguments: {} })).rejects.toThrow(
      /Unknown tool "admin_reindex"/,
    );
    await expect(admin.callTool({ name: 'notes_list', arguments: {} })).rejects.toThrow(
      /Unknown tool "notes_list"/,
    );
    await expect(main.getPrompt({ name: 'audit_summary', arguments: {} })).rejects.toThrow();

    // The in-process invoker sees every tool, and every call went through the one pipeline.
    const invoker = app.get(ToolInvoker);
    expect(invoker.names('MCP')).toEqual(['admin_reindex', 'health_ping', 'notes_list']);
    expect(calls.map((event) => event.name)).toEqual(['health_ping', 'admin_reindex']);
  });

  it('gives each endpoint its own body limit and JSON-RPC body errors', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          AdminModule,
          ToolsModule.forRoot({
            registry,
            mcp: { endpoints: [{ path: '/admin/mcp', maxBodyBytes: 1024 }] },
          }),
        ],
      },
      adapter,
    );
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { padding: 'x'.repeat(2048) },
    });
    const headers = eraHeaders('legacy', 'tools/list');
    expect((await post(`${url}/mcp`, body, headers)).status).toBe(200);
    const refused = await post(`${url}/admin/mcp`, body, headers);
    expect(refused.status).toBe(413);
    expect(refused.messages?.[0].error.message).toBe('Request body too large.');
    const malformed = await post(`${url}/admin/mcp`, '{"jsonrpc":', headers);
    expect(malformed.status).toBe(400);
    expect(malformed.messages?.[0].error.code).toBe(-32700);
  });

  it('selects by service, and takes the factory’s options, shared and per endpoint (forRootAsync)', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          AdminModule,
          ToolsModule.forRootAsync({
            registry,
            mcp: {
              endpoints: [
                { path: 'notes/mcp', select: { services: ['notes'] } },
                { path: 'admin/mcp', select: { services: ['admin'] } },
              ],
            },
            useFactory: () => ({
              mcp: {
                instructions: 'From the factory.',
                endpoints: [
                  { path: '/admin/mcp', serverInfo: { name: 'admin', version: '3.0.0' } },
                ],
              },
            }),
          }),
        ],
      },
      adapter,
    );
    const notes = await connect(`${url}/notes/mcp`);
    expect(names((await notes.listTools()).tools)).toEqual(['notes_list']);
    expect(notes.getInstructions()).toBe('From the factory.');
    // The factory's options for the admin endpoint, by its path.
    const admin = await connect(`${url}/admin/mcp`);
    expect(admin.getServerVersion()).toMatchObject({ name: 'admin', version: '3.0.0' });
    expect(admin.getInstructions()).toBe('From the factory.');
    expect(names((await admin.listTools()).tools)).toEqual(['admin_reindex']);
    const main = await connect(`${url}/mcp`);
    expect(main.getServerVersion()).toMatchObject({ name: 'toolwright' });
    expect(names((await main.listTools()).tools)).toEqual([
      'admin_reindex',
      'health_ping',
      'notes_list',
    ]);
  });
});

describe('serveAppStdio', () => {
  it('serves what mcp selects', async () => {
    const app = await apps.init({
      imports: [AdminModule, ToolsModule.forRoot({ registry, mcp: MCP })],
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = serveAppStdio(app, { transport: serverSide as never });
    const client = new Client({ name: 'stdio', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    expect(names((await client.listTools()).tools)).toEqual(['health_ping', 'notes_list']);
    await served.close();
  });
});

describe('what the bootstrap refuses', () => {
  async function bootWith(mcp: McpOptions) {
    return apps.init({ imports: [AdminModule, ToolsModule.forRoot({ registry, mcp })] });
  }

  it('two endpoints on one path', () => {
    expect(() =>
      ToolsModule.forRoot({ registry, mcp: { endpoints: [{ path: '/MCP/' }] } }),
    ).toThrow(
      new ToolsConfigurationError(MESSAGES.endpointPathTaken('mcp.endpoints[0]', 'mcp', '/MCP/')),
    );
    expect(() =>
      ToolsModule.forRoot({
        registry,
        mcp: { endpoints: [{ path: '/a/mcp' }, { path: 'a/mcp' }] },
      }),
    ).toThrow(MESSAGES.endpointPathTaken('mcp.endpoints[1]', 'mcp.endpoints[0]', 'a/mcp'));
  });

  it('an endpoint without a path, or endpoints that are not a list', () => {
    expect(() => ToolsModule.forRoot({ registry, mcp: { endpoints: [{} as never] } })).toThrow(
      MESSAGES.endpointPath('mcp.endpoints[0]'),
    );
    expect(() => ToolsModule.forRoot({ registry, mcp: { endpoints: {} as never } })).toThrow(
      MESSAGES.endpointsNotList({}),
    );
  });

  it('a selection naming an unknown tool, class or service, or selecting nothing', async () => {
    await expect(
      bootWith({ endpoints: [{ path: '/x/mcp', select: { include: ['health_pong'] } }] }),
    ).rejects.toThrow(
      MCP_MESSAGES.selectedName(
        'mcp.endpoints[0]',
        'include',
        'Unknown tool "health_pong". Did you mean "health_ping"?',
      ),
    );
    await expect(bootWith({ select: { exclude: ['nope'] } })).rejects.toThrow(
      'mcp.select.exclude names nothing the application serves over MCP',
    );
    class NotTools {}
    await expect(
      bootWith({ endpoints: [{ path: '/x/mcp', select: { classes: [NotTools] } }] }),
    ).rejects.toThrow(MCP_MESSAGES.selectedClass('mcp.endpoints[0]', 'NotTools', ['AdminTools']));
    await expect(
      bootWith({ endpoints: [{ path: '/x/mcp', select: { services: ['billing'] } }] }),
    ).rejects.toThrow(
      MCP_MESSAGES.selectedService('mcp.endpoints[0]', 'billing', ['admin', 'health', 'notes']),
    );
    await expect(
      bootWith({ select: { services: ['health'], exclude: ['health_ping'] } }),
    ).rejects.toThrow(MCP_MESSAGES.selectedNothing('mcp'));
  });

  it('an endpoint from forRootAsync’s factory that forRootAsync was not given', async () => {
    const boot = (endpoints: unknown) =>
      apps.init({
        imports: [
          ToolsModule.forRootAsync({
            registry: [ping],
            mcp: { endpoints: [{ path: '/a/mcp' }] },
            useFactory: () => ({ mcp: { endpoints } as never }),
          }),
        ],
      });
    await expect(boot([{ path: '/b/mcp' }])).rejects.toThrow(
      MESSAGES.factoryEndpoint(0, '/b/mcp', ['/a/mcp']),
    );
    await expect(boot([{ path: '/a/mcp', mount: false }])).rejects.toThrow(
      MESSAGES.staticFromFactory(['mcp.endpoints[0].mount']),
    );
  });

  it('two signed-in endpoints that would accept each other’s tokens', async () => {
    const auth = { issuers: 'https://sso.example.com', resource: 'https://api.example.com/mcp' };
    await expect(bootWith({ auth, endpoints: [{ path: '/admin/mcp' }] })).rejects.toThrow(
      MESSAGES.endpointSameResource('mcp.endpoints[0]', 'mcp', 'https://api.example.com/mcp'),
    );
    await expect(
      bootWith({
        auth,
        endpoints: [
          { path: '/admin/mcp', auth: { issuers: auth.issuers, resourceFromRequest: true } },
        ],
      }),
    ).rejects.toThrow(MESSAGES.endpointDerivedResource('mcp.endpoints[0]'));
  });
});
