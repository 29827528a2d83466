/**
 * The bootstrap warning of an endpoint whose tools ask and that has no `requestState` key says
 * what to set and where: `ToolsModule.forRoot({ mcp: { requestState: { key } } })` or
 * `createMcpHttpHandler(invoker, { requestState: { key } })`. And it reaches the console by
 * default, without a logger.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';

const close = defineRuntimeTool({
  description: 'Close a ticket, once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) => ((await confirm('Close it?')) ? input : null),
});

afterEach(() => {
  jest.restoreAllMocks();
});

describe('an endpoint whose tools ask, without a requestState key', () => {
  it('warns once, naming the option and where to set it', async () => {
    const warnings: string[] = [];
    const handler = createMcpHttpHandler(createToolInvoker([close]), {
      logger: { error: () => undefined, warn: (message) => void warnings.push(message) },
    });
    expect(warnings).toEqual([MCP_MESSAGES.requestStateOwnKey()]);
    expect(warnings[0]).toContain('ToolsModule.forRoot({ mcp: { requestState: { key } } })');
    expect(warnings[0]).toContain('createMcpHttpHandler(invoker, { requestState: { key } })');
    await handler.close();
  });

  it('says so on the console when no logger is given', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const handler = createMcpHttpHandler(createToolInvoker([close]));
    expect(warn).toHaveBeenCalledWith(MCP_MESSAGES.requestStateOwnKey());
    await handler.close();
  });

  it('is quiet with a key', async () => {
    const warnings: string[] = [];
    const handler = createMcpHttpHandler(createToolInvoker([close]), {
      requestState: { key: 'a key of thirty-two bytes or more, shared' },
      logger: { error: () => undefined, warn: (message) => void warnings.push(message) },
    });
    expect(warnings).toEqual([]);
    await handler.close();
  });
});
