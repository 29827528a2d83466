import { describe, expect, it } from '@jest/globals';
import { createToolInvoker } from 'toolwright';
import { bindInstances } from 'toolwright/testing';
import { CatalogService, CatalogTools } from '../tools/catalog.tools.js';

// A @ToolFactory class with constructor dependencies, still without Nest: build the instance
// yourself and bind the class's tools to it.
describe('CatalogTools', () => {
  const invoker = createToolInvoker([CatalogTools], {
    // @UseToolGuards guard classes are built with `new`, unless you pass an instance too.
    bind: bindInstances(new CatalogTools(new CatalogService())),
  });

  it('searches through the runner: input parsed, output checked', async () => {
    expect(await invoker.invoke('catalog_search', { query: 'anv' }, { transport: 'MCP' })).toEqual({
      ok: true,
      data: { products: [{ id: 'p1', title: 'Anvil', stock: 3 }] },
    });
  });

  it('keeps an AGENT-only tool off MCP', async () => {
    expect(invoker.names('MCP')).not.toContain('catalog_restock');
    // As an MCP client would call it: source 'mcp', so an unknown name is NOT_FOUND.
    await expect(
      invoker.invoke(
        'catalog_restock',
        { id: 'p2', stock: 1 },
        { transport: 'MCP', source: 'mcp' },
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
