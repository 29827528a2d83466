/**
 * A handler's `confirm` and `elicit` over MCP on the 2026-07-28 era: multi round-trip input
 * through the SDK (`input_required`, a sealed `requestState`), answered by the official client's
 * elicitation handler; the handler running again each round; a second instance sharing the key
 * taking the next round; refused states (tampered, expired, another tool's, other arguments,
 * replayed); and clients that cannot answer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, type ToolInvoker } from '../../lib/core/index.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { MODERN_META, eraHeaders, post } from '../fixtures/mcp-http.js';
import { connectClient, textJson } from './support.js';

const KEY = 'a shared key of at least 32 bytes, for every instance';
const Priority = z.object({ priority: z.enum(['low', 'normal', 'high']) });

/** How many times each tool's handler ran: once per round. */
const runs: Record<string, number> = {};

function askingTools() {
  const close = defineRuntimeTool({
    description: 'Close a ticket once the user confirms, then ask for a follow-up priority',
    identity: { serviceName: 'desk', action: 'close', method: 'POST' },
    input: z.object({ id: z.string() }),
    asks: { confirm: true, elicit: [Priority] },
    handler: async ({ input, confirm, elicit }) => {
      runs.close = (runs.close ?? 0) + 1;
      if (!(await confirm(`Close ${input.id}?`))) return { closed: false };
      const answer = await elicit({ message: 'Follow-up priority?', schema: Priority });
      return answer.action === 'accept'
        ? { closed: true, priority: answer.content.priority }
        : { closed: true, priority: answer.action };
    },
  });
  const echo = defineRuntimeTool({
    description: 'Echo without asking',
    identity: { serviceName: 'desk', action: 'echo', method: 'GET' },
    input: z.object({ text: z.string() }),
    handler: ({ input }) => ({ text: input.text }),
  });
  let asked = 0;
  const fickle = defineRuntimeTool({
    description: 'Asks another question each time it runs',
    identity: { serviceName: 'desk', action: 'fickle', method: 'POST' },
    input: z.object({}),
    asks: { confirm: true },
    handler: async ({ confirm }) => ({ sure: await confirm(`Sure? (${++asked})`) }),
  });
  return [close, echo, fickle];
}

/** An instance: its own invoker and HTTP server, the endpoint sealing states with `key` (none: `null`). */
async function instance(key: string | null = KEY) {
  const invoker: ToolInvoker = createToolInvoker(askingTools());
  const warnings: string[] = [];
  const handler = createMcpHttpHandler(invoker, {
    ...(key !== null && { requestState: { key } }),
    logger: { error: () => undefined, warn: (message: string) => void warnings.push(message) },
  } as never);
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, server, warnings };
}

const servers: Server[] = [];
let a: Awaited<ReturnType<typeof instance>>;
let b: Awaited<ReturnType<typeof instance>>;
beforeAll(async () => {
  a = await instance();
  b = await instance();
  servers.push(a.server, b.server);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});
afterEach(() => {
  for (const key of Object.keys(runs)) delete runs[key];
  jest.useRealTimers();
});

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

/** A 2026-era client whose user answers from a script; `route` may send a request elsewhere. */
async function client(url: string, answers: Answer[], route?: (count: number) => string) {
  const asked: Array<{ message: string; requestedSchema: unknown }> = [];
  let requests = 0;
  const mcp = new Client(
    { name: 'asking-test', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  mcp.setRequestHandler('elicitation/create', async (request) => {
    const { message, requestedSchema } = request.params as {
      message: string;
      requestedSchema: unknown;
    };
    asked.push({ message, requestedSchema });
    const answer = answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    return answer as never;
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      const target = route ? route(requests++) : String(input);
      return fetch(target, init);
    },
  });
  await mcp.connect(transport);
  return { mcp, asked };
}

describe('multi round-trip input on the 2026-07-28 era', () => {
  it('confirm and elicit answered: the handler runs once per round, the questions as MCP sends them', async () => {
    const { mcp, asked } = await client(a.url, [
      { action: 'accept' },
      { action: 'accept', content: { priority: 'high' } },
    ]);
    const result = await mcp.callTool({ name: 'desk_close', arguments: { id: 'T-1' } });
    await mcp.close();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent ?? textJson(result as never)).toEqual({
      closed: true,
      priority: 'high',
    });
    expect(asked).toEqual([
      { message: 'Close T-1?', requestedSchema: { type: 'object', properties: {} } },
      {
        message: 'Follow-up priority?',
        requestedSchema: {
          type: 'object',
          properties: { priority: { type: 'string', enum: ['low', 'normal', 'high'] } },
          required: ['priority'],
        },
      },
    ]);
    expect(runs.close).toBe(3);
  });

  it.each([
    ['a declined confirmation', [{ action: 'decline' }], { closed: false }, 2],
    ['a cancelled confirmation', [{ action: 'cancel' }], { closed: false }, 2],
    [
      'a declined elicitation',
      [{ action: 'accept' }, { action: 'decline' }],
      { closed: true, priority: 'decline' },
      3,
    ],
    [
      'a cancelled elicitation',
      [{ action: 'accept' }, { action: 'cancel' }],
      { closed: true, priority: 'cancel' },
      3,
    ],
  ] as const)('%s', async (_label, answers, data, rounds) => {
    const { mcp } = await client(a.url, [...answers]);
    const result = await mcp.callTool({ name: 'desk_close', arguments: { id: 'T-2' } });
    await mcp.close();
    expect(textJson(result as never)).toEqual(data);
    expect(runs.close).toBe(rounds);
  });

  it('any instance with the same key takes the next round', async () => {
    const urls: string[] = [];
    // Requests alternate between the two instances, as behind a round-robin balancer.
    const { mcp } = await client(
      a.url,
      [{ action: 'accept' }, { action: 'accept', content: { priority: 'low' } }],
      (count) => {
        const url = count % 2 === 0 ? a.url : b.url;
        urls.push(url);
        return url;
      },
    );
    const result = await mcp.callTool({ name: 'desk_close', arguments: { id: 'T-3' } });
    await mcp.close();
    expect(textJson(result as never)).toEqual({ closed: true, priority: 'low' });
    expect(new Set(urls)).toEqual(new Set([a.url, b.url]));
  });
});

/** One raw 2026-era `tools/call`, with the client's elicitation capability. */
async function rawCall(
  url: string,
  name: string,
  args: unknown,
  extra: { requestState?: string; inputResponses?: Record<string, unknown> } = {},
  capabilities: Record<string, unknown> = { elicitation: {} },
) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities },
    },
  });
  const answer = await post(url, body, eraHeaders('modern', 'tools/call', name));
  return answer.messages?.at(-1);
}

/** The `requestState` of the first round of closing T-9. */
async function firstState(url = a.url): Promise<string> {
  const first = await rawCall(url, 'desk_close', { id: 'T-9' });
  expect(first.result).toMatchObject({
    resultType: 'input_required',
    inputRequests: { q0: { method: 'elicitation/create' } },
  });
  return first.result.requestState;
}

/** The second round of closing T-9: its state, and the confirmation accepted. */
function answerFirst(url: string, state: string) {
  return rawCall(
    url,
    'desk_close',
    { id: 'T-9' },
    {
      requestState: state,
      inputResponses: { q0: { action: 'accept' } },
    },
  );
}

const REFUSED = {
  code: -32602,
  message: 'Invalid or expired requestState',
  data: { reason: 'invalid_request_state' },
};

describe('refused states: the SDK’s -32602, and the handler does not run', () => {
  const accepted = { q0: { action: 'accept' } };

  it('a state answered once goes on to the next question', async () => {
    const state = await firstState();
    const second = await answerFirst(a.url, state);
    expect(second.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { q1: { method: 'elicitation/create' } },
    });
  });

  it.each([
    [
      'tampered',
      (state: string) => `${state.slice(0, -2)}${state.endsWith('A') ? 'B' : 'A'}A`,
      'desk_close',
      { id: 'T-9' },
    ],
    ['sent with other arguments', (state: string) => state, 'desk_close', { id: 'T-10' }],
    ['sent to another tool', (state: string) => state, 'desk_echo', { text: 'x' }],
  ])('%s', async (_label, change, name, args) => {
    const state = await firstState();
    runs.close = 0;
    const answer = await rawCall(a.url, name, args, {
      requestState: change(state),
      inputResponses: accepted,
    });
    expect(answer.error).toEqual(REFUSED);
    expect(runs.close).toBe(0);
  });

  it('answers to other questions than the handler asks this time', async () => {
    const { mcp } = await client(a.url, [{ action: 'accept' }]);
    await expect(mcp.callTool({ name: 'desk_fickle', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid or expired requestState'),
    });
    await mcp.close();
  });

  it('replayed: a state answers one round only', async () => {
    const state = await firstState();
    const once = await answerFirst(a.url, state);
    expect(once.result.resultType).toBe('input_required');
    const again = await answerFirst(a.url, state);
    expect(again.error).toEqual(REFUSED);
  });

  it('expired', async () => {
    const state = await firstState();
    // Only the clock moves: an hour later the state (ten minutes) has expired.
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'setImmediate',
        'setTimeout',
        'setInterval',
        'clearTimeout',
        'clearInterval',
        'queueMicrotask',
        'hrtime',
        'performance',
      ],
    });
    jest.setSystemTime(Date.now() + 60 * 60 * 1000);
    const answer = await answerFirst(a.url, state);
    expect(answer.error).toEqual(REFUSED);
  });

  it('sealed with another key (an instance that does not share it)', async () => {
    const other = await instance('another key of at least thirty-two bytes, not shared');
    servers.push(other.server);
    const state = await firstState(other.url);
    const answer = await answerFirst(a.url, state);
    expect(answer.error).toEqual(REFUSED);
  });
});

describe('clients that cannot answer', () => {
  it('a 2026-era client without the elicitation capability: USER_INPUT_UNAVAILABLE, no question', async () => {
    const answer = await rawCall(a.url, 'desk_close', { id: 'T-4' }, {}, {});
    expect(answer.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(JSON.parse(answer.result.content[0].text)).toMatchObject({
      error: 'USER_INPUT_UNAVAILABLE',
    });
  });

  it('a 2025-era client: USER_INPUT_UNAVAILABLE', async () => {
    const legacy = await connectClient('v1 (2025)', a.url);
    const result = await legacy.callTool('desk_close', { id: 'T-5' });
    await legacy.close();
    expect(result.isError).toBe(true);
    expect(textJson(result)).toMatchObject({ error: 'USER_INPUT_UNAVAILABLE' });
  });

  it('without a key, the endpoint warns at bootstrap that questions stay on one instance', async () => {
    const alone = await instance(null);
    servers.push(alone.server);
    expect(alone.warnings).toEqual([expect.stringContaining('no requestState key is set')]);
    // With its key, `a` warned only of the 2025-era question above that named no caller.
    expect(a.warnings).toEqual([MCP_MESSAGES.anonymousQuestion('desk_close')]);
  });
});
