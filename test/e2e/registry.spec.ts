import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ToolError, ToolInvoker, ToolsModule, defineToolRegistry } from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';
import { CatalogModule, CatalogTools, catalogGetV2, pingTool } from '../fixtures/catalog.js';

describe('the mounted registry after disable/replace', () => {
  const apps = new TestApps();
  let tools: ToolInvoker;

  beforeAll(async () => {
    const registry = defineToolRegistry({ defaults: [CatalogTools, pingTool] })
      .disable('catalog_remove')
      .replace('catalog_get', catalogGetV2);
    const app = await apps.init({ imports: [CatalogModule, ToolsModule.forRoot(registry)] });
    tools = app.get(ToolInvoker);
  });
  afterAll(() => apps.closeAll());

  it('names() lists what the registry mounts, per transport, sorted and frozen', () => {
    expect(tools.names('AGENT')).toEqual(['catalog_get', 'catalog_list', 'health_ping']);
    expect(tools.names('MCP')).toEqual(['catalog_get', 'catalog_list']);
    expect(tools.names('CLI')).toEqual(['health_ping']);
    expect(Object.isFrozen(tools.names('AGENT'))).toBe(true);
    expect(tools.names('AGENT')).toBe(tools.names('AGENT'));
  });

  it('manifest() describes the replacement in place of the class tool, in declaration order', () => {
    const manifest = tools.manifest('AGENT');
    expect(manifest.map((tool) => tool.name)).toEqual([
      'catalog_list',
      'catalog_get',
      'health_ping',
    ]);
    const get = manifest[1];
    expect(get).toEqual({
      name: 'catalog_get',
      description: 'Fetch one product (runtime replacement)',
      identity: { serviceName: 'catalog', action: 'get', method: 'GET' },
      transports: ['MCP', 'AGENT'],
      annotations: { readOnlyHint: true },
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { id: { type: 'string' }, locale: { type: 'string' } },
        required: ['id'],
      }),
    });
    expect(manifest[0]).toEqual(
      expect.objectContaining({
        description: 'List every product',
        identity: { serviceName: 'catalog', action: 'list', method: 'GET', meta: { team: 'shop' } },
        outputSchema: expect.objectContaining({ type: 'object' }),
      }),
    );
    expect(Object.isFrozen(manifest)).toBe(true);
    expect(Object.isFrozen(get)).toBe(true);
  });

  it('runs the replacement, not the class method', async () => {
    expect(await tools.invoke('catalog_get', { id: 'p1' }, { transport: 'AGENT' })).toEqual({
      ok: true,
      data: { source: 'runtime', id: 'p1' },
    });
  });

  it('does not know the disabled tool on any transport', async () => {
    for (const transport of ['MCP', 'AGENT', 'CLI'] as const) {
      const source = transport.toLowerCase();
      const call = tools.invoke('catalog_remove', { id: 'p1' }, { transport, source });
      await expect(call).rejects.toBeInstanceOf(ToolError);
      await expect(call).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('keeps the class tools that were neither disabled nor replaced bound to the container', async () => {
    expect(await tools.invoke('catalog_list', {}, { transport: 'MCP' })).toEqual({
      ok: true,
      data: { products: expect.arrayContaining([{ id: 'p1', title: 'Anvil' }]) },
    });
  });
});
