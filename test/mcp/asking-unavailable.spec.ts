/**
 * A tool that asks, called by a caller that cannot answer. An MCP client (no elicitation
 * capability, either era) is told in the client's words, never the developer's advice; the
 * invoker's log carries that advice, once per tool however often clients call. An in-process
 * caller, who is the developer, keeps the advice in the error itself.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { askConfirm, clientCannotAnswerLog } from '../../lib/core/asking.js';
import type { ToolCallInfo } from '../../lib/core/types.js';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { connectClient, textJson } from './support.js';

const close = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) => ({ closed: await confirm(`Close ${input.id}?`) }),
});

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** An invoker serving MCP on a port of its own, and what it logged at each level. */
async function serve() {
  const logged: Record<'error' | 'warn', string[]> = { error: [], warn: [] };
  const invoker = createToolInvoker([close], {
    logger: {
      error: (message) => void logged.error.push(message),
      warn: (message) => void logged.warn.push(message),
    },
  });
  const server = createServer(
    createMcpHttpHandler(invoker, {
      requestState: { key: 'a key of at least thirty-two bytes, for this spec' },
      // Every request names its caller, so a 2025-era question fails only for want of elicitation.
      identify: () => 'desk-user',
    } as never),
  );
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { invoker, url, logged };
}

/** Calls `desk_close` from a client of each era without the elicitation capability. */
async function callFromEachEra(url: string) {
  const envelopes: unknown[] = [];
  for (const generation of ['v1 (2025)', 'v2 (2026-07-28)'] as const) {
    const client = await connectClient(generation, url);
    try {
      const result = await client.callTool('desk_close', { id: 'T-1' });
      expect(result.isError).toBe(true);
      envelopes.push(textJson(result));
    } finally {
      await client.close();
    }
  }
  return envelopes;
}

describe('a question no caller can answer', () => {
  it('an MCP client of either era gets the client’s message, not the developer’s advice', async () => {
    const { url } = await serve();
    const envelopes = await callFromEachEra(url);
    const expected = {
      error: 'USER_INPUT_UNAVAILABLE',
      message:
        'Tool "desk_close" needs an answer from the user, and this client cannot ask one: ' +
        'it does not support MCP elicitation.',
      retryable: false,
      hint: 'Call the tool from an MCP client that supports elicitation, which asks the user.',
    };
    expect(envelopes).toEqual([expected, expected]);
    expect(JSON.stringify(envelopes)).not.toMatch(/callback|invoker/);
  });

  it('the invoker’s log has the developer’s advice, once per tool however often clients call', async () => {
    const { url, logged } = await serve();
    await callFromEachEra(url);
    await callFromEachEra(url);
    expect(logged.warn).toEqual([clientCannotAnswerLog('desk_close')]);
    expect(logged.warn[0]).toContain('Pass an `ask` callback to the invoker');
    expect(logged.error).toEqual([]);
  });

  it('an in-process caller without `ask` gets the developer’s advice in the error, not the log', async () => {
    const { invoker, logged } = await serve();
    const result = await invoker.invoke('desk_close', { id: 'T-2' }, { transport: 'AGENT' });
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'USER_INPUT_UNAVAILABLE',
        message: 'Tool "desk_close" needs an answer from the user, and this caller cannot ask one.',
        hint: 'Pass an `ask` callback to the invoker, or call the tool from a surface that asks its user.',
      }),
    });
    expect(logged.warn).toEqual([]);
  });

  it('asking itself: an MCP call logs to the logger it is given, once per tool and logger', async () => {
    const warned: string[] = [];
    const logger = { error: () => undefined, warn: (message: string) => void warned.push(message) };
    const call = (name: string, source: string): ToolCallInfo => ({
      id: `${name}-${source}`,
      name,
      kind: 'tool',
      transport: source === 'mcp' ? 'MCP' : 'AGENT',
      source,
      depth: 0,
    });
    const asking = (name: string, source = 'mcp') => ({
      call: call(name, source),
      asks: { confirm: true },
      signal: new AbortController().signal,
      logger,
    });
    for (const name of ['desk_close', 'desk_close', 'desk_reopen']) {
      await expect(askConfirm(asking(name), 'Sure?')).rejects.toMatchObject({
        code: 'USER_INPUT_UNAVAILABLE',
        hint: 'Call the tool from an MCP client that supports elicitation, which asks the user.',
      });
    }
    await expect(askConfirm(asking('desk_purge', 'internal'), 'Sure?')).rejects.toMatchObject({
      hint: 'Pass an `ask` callback to the invoker, or call the tool from a surface that asks its user.',
    });
    expect(warned).toEqual([
      clientCannotAnswerLog('desk_close'),
      clientCannotAnswerLog('desk_reopen'),
    ]);
  });
});
