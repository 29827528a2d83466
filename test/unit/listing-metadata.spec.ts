/**
 * What clients read of a tool besides its schemas: `icons` and `_meta`, checked as MCP allows
 * and listed on both eras, and the `lintAnnotations` warning about tools without the
 * annotations some assistant directories require.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  createToolInvoker,
  defineResource,
  defineRuntimeTool,
  ToolsConfigurationError,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { connectClient, GENERATIONS } from '../mcp/support.js';

const UI = { 'io.modelcontextprotocol/ui': { resourceUri: 'ui://invoices/chart' } };

const chart = (extra: object = {}) =>
  defineRuntimeTool({
    description: 'Chart the invoices',
    identity: { serviceName: 'invoices', action: 'chart', method: 'GET' },
    input: z.object({}),
    icons: [{ src: 'https://example.com/chart.png', mimeType: 'image/png', sizes: ['48x48'] }],
    _meta: UI,
    handler: () => ({ points: [] }),
    ...extra,
  });

describe('icons and _meta', () => {
  it('are in the descriptor and listed by MCP on both eras', async () => {
    const invoker = createToolInvoker([chart()]);
    expect(invoker.find('invoices_chart', 'MCP')).toMatchObject({
      icons: [{ src: 'https://example.com/chart.png', mimeType: 'image/png', sizes: ['48x48'] }],
      _meta: UI,
    });
    const server = createServer(createMcpHttpHandler(invoker));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    try {
      for (const generation of GENERATIONS) {
        const client = await connectClient(generation, url);
        const { tools } = await client.listTools();
        await client.close();
        expect(tools[0]).toMatchObject({
          name: 'invoices_chart',
          icons: [
            { src: 'https://example.com/chart.png', mimeType: 'image/png', sizes: ['48x48'] },
          ],
          _meta: UI,
        });
      }
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  const owner = '"invoices_chart" (runtime tool invoices.chart)';
  it.each([
    [
      'an icon without an https: or data: source',
      { icons: [{ src: 'http://example.com/a.png' }] },
      CORE_MESSAGES.icon(owner, { src: 'http://example.com/a.png' }),
    ],
    [
      'an icon with a theme MCP does not know',
      { icons: [{ src: 'https://x/a.png', theme: 'blue' }] },
      CORE_MESSAGES.icon(owner, { src: 'https://x/a.png', theme: 'blue' }),
    ],
    [
      'icons that are not a list',
      { icons: { src: 'https://x/a.png' } },
      CORE_MESSAGES.icons(owner),
    ],
    [
      'a _meta key that is not [prefix/]name',
      { _meta: { 'bad key': 1 } },
      CORE_MESSAGES.metaKey(owner, 'bad key'),
    ],
    ['a _meta that is not an object', { _meta: [1] }, CORE_MESSAGES.metaNotObject(owner)],
  ])('refuse %s, naming the tool', (_label, extra, message) => {
    expect(() => chart(extra)).toThrow(ToolsConfigurationError);
    expect(() => chart(extra)).toThrow(message);
  });

  it('are checked on resources and prompts too', () => {
    expect(() =>
      defineResource({
        uri: 'kb://x',
        name: 'x',
        icons: [{ src: 'ftp://x' }],
        read: () => 'x',
      }),
    ).toThrow(CORE_MESSAGES.icon('The resource "x"', { src: 'ftp://x' }));
  });
});

describe('lintAnnotations', () => {
  const post = defineRuntimeTool({
    description: 'Refund an invoice',
    identity: { serviceName: 'invoices', action: 'refund', method: 'POST' },
    input: z.object({}),
    handler: () => ({}),
  });
  const titled = defineRuntimeTool({
    description: 'Delete an invoice',
    identity: { serviceName: 'invoices', action: 'delete', method: 'DELETE' },
    input: z.object({}),
    annotations: { title: 'Delete an invoice' },
    handler: () => ({}),
  });

  it('warns about each tool without a title, or without destructiveHint when it is not read-only', () => {
    const warn = jest.fn();
    createToolInvoker([post, titled, chart()], {
      lintAnnotations: true,
      logger: { error: jest.fn(), warn },
    });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      '[toolwright] Tool "invoices_refund" (runtime tool invoices.refund) has no annotations.title, ' +
        'annotations.destructiveHint: some assistant directories require them. Declare them in `annotations`.',
      '[toolwright] Tool "invoices_chart" (runtime tool invoices.chart) has no annotations.title: ' +
        'some assistant directories require them. Declare them in `annotations`.',
    ]);
  });

  it('is off by default', () => {
    const warn = jest.fn();
    createToolInvoker([post], { logger: { error: jest.fn(), warn } });
    expect(warn).not.toHaveBeenCalled();
  });
});
