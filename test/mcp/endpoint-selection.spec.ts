/**
 * `select` on an endpoint without Nest (`createMcpHttpHandler`): the endpoint lists, calls,
 * reads, gets and completes only what it selects, through the invoker's one runner, while the
 * invoker itself still runs everything. And the narrowed catalog answers every method the
 * catalog has, so that a method added to `ToolCatalog` cannot reach the whole catalog unnoticed.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineRuntimeTool,
} from '../../lib/index.js';
import { catalogInvoker } from '../../lib/core/catalog-invoker.js';
import { ToolCatalog } from '../../lib/core/catalog.js';
import { narrowedCatalog, selectedInvoker } from '../../lib/mcp/endpoint-selection.js';
import { listenMcp, rpc } from '../fixtures/mcp-http.js';

const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});
const purge = defineRuntimeTool({
  description: 'Purge the cache',
  identity: { serviceName: 'ops', action: 'purge', method: 'DELETE' },
  input: z.object({}),
  tags: ['admin', 'ops'],
  handler: () => ({ purged: true }),
});
const handbook = defineResource({
  uri: 'docs://handbook',
  name: 'handbook',
  read: () => '# Handbook',
});
const release = defineResourceTemplate({
  uriTemplate: 'releases://{version}',
  name: 'release',
  variables: z.object({ version: z.string() }),
  complete: { version: () => ['1.0.0'] },
  read: ({ input, uri }) => ({ uri, text: input.version }),
});
const standup = definePrompt({
  name: 'standup',
  description: 'Stand-up',
  args: z.object({}),
  tags: ['admin'],
  get: () => 'Write the stand-up.',
});

const invoker = createToolInvoker([ping, purge, handbook, release, standup]);

describe('an endpoint that selects part of the invoker', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it('serves only what it selects, each era', async () => {
    const served = await listenMcp(invoker, {
      select: { include: ['health_ping', 'handbook'] },
    });
    close = served.close;
    for (const era of ['legacy', 'modern'] as const) {
      const meta = era === 'modern' ? { _meta: modernMeta } : {};
      const tools = await rpc(served.url, era, 'tools/list', { ...meta });
      expect(tools.result.tools.map((t: { name: string }) => t.name)).toEqual(['health_ping']);
      const resources = await rpc(served.url, era, 'resources/list', { ...meta });
      expect(resources.result.resources.map((r: { name: string }) => r.name)).toEqual(['handbook']);
      const refused = await rpc(served.url, era, 'tools/call', {
        name: 'ops_purge',
        arguments: {},
        ...meta,
      });
      expect(refused.error?.message ?? JSON.stringify(refused.result)).toContain(
        'Unknown tool "ops_purge"',
      );
      const unread = await rpc(served.url, era, 'resources/read', {
        uri: 'releases://1.0.0',
        ...meta,
      });
      expect(unread.error).toBeDefined();
      const read = await rpc(served.url, era, 'resources/read', {
        uri: 'docs://handbook',
        ...meta,
      });
      expect(read.result.contents[0].text).toBe('# Handbook');
    }
    // The invoker itself still runs what the endpoint leaves out.
    expect(await invoker.invoke('ops_purge', {}, { transport: 'MCP' })).toEqual({
      ok: true,
      data: { purged: true },
    });
  });

  it('refuses, gets nothing and completes nothing of what it leaves out, in process', async () => {
    const narrowed = selectedInvoker(catalogInvoker(invoker), { services: ['health'] }, 'mcp');
    expect(narrowed.names('MCP')).toEqual(['health_ping']);
    expect(narrowed.operations('MCP', 'prompt')).toEqual([]);
    await expect(
      narrowed.invoke('ops_purge', {}, { transport: 'MCP', source: 'mcp' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      narrowed.getPrompt('standup', {}, { transport: 'MCP', source: 'mcp' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      narrowed.readResource('docs://handbook', { transport: 'MCP', source: 'mcp' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(
      await narrowed.complete('release', { name: 'version', value: '' }, { transport: 'MCP' }),
    ).toEqual([]);
    expect(await narrowed.invoke('health_ping', {}, { transport: 'MCP' })).toMatchObject({
      ok: true,
    });
  });

  it('selects by tag: tools and operations carrying one, an unknown tag refused', () => {
    const narrowed = selectedInvoker(catalogInvoker(invoker), { tags: ['admin'] }, 'mcp');
    expect(narrowed.names('MCP')).toEqual(['ops_purge']);
    expect(narrowed.operations('MCP', 'prompt').map((prompt) => prompt.name)).toEqual(['standup']);
    expect(narrowed.operations('MCP', 'resource')).toEqual([]);
    expect(invoker.find('ops_purge', 'MCP')?.tags).toEqual(['admin', 'ops']);
    expect(() => selectedInvoker(catalogInvoker(invoker), { tags: ['admn'] }, 'mcp')).toThrow(
      'mcp.select.tags names "admn", a tag nothing served over MCP carries; the tags are admin, ops.',
    );
  });

  it('narrows every method of the catalog', () => {
    const { catalog } = catalogInvoker(invoker);
    const view = narrowedCatalog(catalog, new Set(catalog.tools('MCP')));
    const methods = Object.getOwnPropertyNames(ToolCatalog.prototype).filter(
      (name) => name !== 'constructor' && name !== 'surface',
    );
    for (const name of methods) expect(Object.hasOwn(view, name)).toBe(true);
    expect(Object.hasOwn(view, 'compiled')).toBe(true);
    expect(view).toBeInstanceOf(ToolCatalog);
  });
});

const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'selection', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
