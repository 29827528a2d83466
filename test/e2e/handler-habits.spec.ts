/**
 * Habits from other MCP libraries, over MCP on both adapters: `log.warn` in a handler (the name
 * Nest's `Logger` uses) sends a `warning` log notification instead of failing the call, and a
 * handler that returns an MCP result (`{ content: [...] }`) from a tool without an output schema
 * is warned about once per tool, through Nest's `Logger`, with the fix.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Tool, ToolFactory, ToolsModule, type ToolCall } from '../../lib/index.js';
import { ADAPTERS, TestApps, type AdapterName } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { callBody, eraHeaders, post, type Era } from '../fixtures/mcp-http.js';

@ToolFactory({ serviceName: 'shop' })
@Injectable()
class ShopTools {
  @Tool({
    name: 'refund-order',
    action: 'refund',
    method: 'POST',
    description: 'Refund an order',
    input: z.object({ id: z.string() }),
    output: z.object({ refunded: z.string() }),
  })
  refund({ input, log }: ToolCall<{ id: string }>) {
    log.warn(`Order ${input.id} refunded.`); // as with 2.x's ctx.log.warn and Nest's Logger
    return { refunded: input.id };
  }

  @Tool({
    name: 'get-greeting',
    action: 'greet',
    method: 'GET',
    description: 'Greet',
    input: z.object({}),
  })
  greet() {
    return { content: [{ type: 'text', text: 'x' }] }; // an MCP result, out of habit
  }
}

const MCP_RESULT_WARNING =
  '[toolwright] Tool "get-greeting" returned an MCP result ({ content: [...] }), which is sent ' +
  'as its data: toolwright builds the MCP result (content and structuredContent) from the data ' +
  'a handler returns: return the data itself, and to choose the content blocks a model reads, ' +
  'declare an output schema and a present.mcp presenter.';

/** The 2026-07-28 era sends log notifications only to a request that sets a level. */
const WARNING_LEVEL = { 'io.modelcontextprotocol/logLevel': 'warning' };

const SERVER_INFO = { name: 'shop', version: '1.0.0' };

/** The JSON-RPC response carrying a `tools/call` result, as each era writes it. */
function response(era: Era, result: object) {
  return {
    jsonrpc: '2.0',
    id: 1,
    result:
      era === 'legacy'
        ? result
        : {
            ...result,
            resultType: 'complete',
            _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
          },
  };
}

async function serve(apps: TestApps, adapter: AdapterName) {
  const logger = new RecordingLogger();
  const { url } = await apps.listen(
    {
      imports: [ToolsModule.forRoot({ registry: [ShopTools], mcp: { serverInfo: SERVER_INFO } })],
      providers: [ShopTools],
    },
    adapter,
    { logger },
  );
  /** Calls a tool over MCP: every JSON-RPC message of the answer, notifications first. */
  const call = async (era: Era, name: string, args: object, meta: Record<string, unknown> = {}) => {
    const answer = await post(
      `${url}/mcp`,
      callBody(era, name, args, 1, meta),
      eraHeaders(era, 'tools/call', name),
    );
    expect(answer.status).toBe(200);
    return answer.messages;
  };
  return { call, logger };
}

describe.each(ADAPTERS)('habits of other MCP libraries in a handler (%s)', (adapter) => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it.each([
    ['2025-06-18', 'legacy', {}],
    ['2026-07-28, log level warning', 'modern', WARNING_LEVEL],
  ] as const)(
    'log.warn succeeds and sends a notifications/message at level warning (%s)',
    async (_label, era, meta) => {
      const { call, logger } = await serve(apps, adapter);
      expect(await call(era, 'refund-order', { id: 'o-1' }, meta)).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'warning', data: 'Order o-1 refunded.' },
        },
        response(era, {
          content: [{ type: 'text', text: '{"refunded":"o-1"}' }],
          structuredContent: { refunded: 'o-1' },
        }),
      ]);
      expect(logger.complaints).toEqual([]);
    },
  );

  it('warns once about a handler that returns an MCP result, naming the tool and the fix', async () => {
    const { call, logger } = await serve(apps, adapter);
    // Sent as its data: the JSON of the MCP result, as the text of a new one.
    const sentAsData = {
      content: [{ type: 'text', text: '{"content":[{"type":"text","text":"x"}]}' }],
    };
    expect(await call('legacy', 'get-greeting', {})).toEqual([response('legacy', sentAsData)]);
    expect(await call('modern', 'get-greeting', {})).toEqual([response('modern', sentAsData)]);
    expect(logger.complaints).toEqual([
      { level: 'warn', args: [MCP_RESULT_WARNING, 'ToolsModule'] },
    ]);
  });
});
