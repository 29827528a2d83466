/**
 * A question, and a task, belong to the signed-in caller, with tokens from a real authorization
 * server: on the 2026-07-28 era another client's token cannot take the next round of its
 * `requestState` (the SDK's -32602), while a new token of the same client can; on the 2025 era
 * another client's answer POST does not settle the question; and another client is told a task
 * does not exist, while a new token of the client that created it sees it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import {
  ACCEPT,
  closeServer,
  eraHeaders,
  initializeMessage,
  LEGACY_VERSION,
  MODERN_META,
  rpc as rpcOf,
  streamedMessages,
} from '../fixtures/mcp-http.js';

const RESOURCE = 'https://desk.example/mcp';
const ALICE = { clientId: 'alice-agent', clientSecret: 'alice-secret' };
const BOB = { clientId: 'bob-agent', clientSecret: 'bob-secret' };

let runs = 0;
const close = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'desk', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) => {
    runs += 1;
    return { closed: await confirm(`Close ${input.id}?`) };
  },
});

const report = defineRuntimeTool({
  description: 'Build a report (as a task)',
  identity: { serviceName: 'desk', action: 'report', method: 'GET' },
  input: z.object({}),
  task: 'optional',
  handler: () => ({ rows: 3 }),
});

let as: AuthorizationServer;
let server: Server;
let listener: McpRequestListener;
let url: string;

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: [RESOURCE],
    scopes: ['desk'],
    clients: [
      { ...ALICE, scopes: ['desk'] },
      { ...BOB, scopes: ['desk'] },
    ],
  });
  listener = createMcpHttpHandler(createToolInvoker([close, report]), {
    auth: { issuers: as.issuer, resource: RESOURCE },
    requestState: { key: 'the key of every instance of the desk endpoint' },
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
  await as?.close();
});

const token = async (client: typeof ALICE) =>
  (await as.clientCredentialsToken(client, { resource: RESOURCE, scope: 'desk' })).access_token;

/** A 2026-era round of closing T-1 with `bearer`: the last JSON-RPC message of the answer. */
async function modernRound(
  bearer: string,
  extra: { requestState?: string; inputResponses?: Record<string, unknown> } = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...eraHeaders('modern', 'tools/call', 'desk_close'),
      authorization: `Bearer ${bearer}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'desk_close',
        arguments: { id: 'T-1' },
        ...extra,
        _meta: {
          ...MODERN_META,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : text.split('data: ').at(-1)!;
  return JSON.parse(json);
}

describe('2026-07-28 era: the requestState is bound to the principal', () => {
  it('another client’s token is refused -32602 and the handler does not run; a new token of the same client answers', async () => {
    const first = await modernRound(await token(ALICE));
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const { requestState } = first.result;
    const accepted = { q0: { action: 'accept' } };

    runs = 0;
    const stolen = await modernRound(await token(BOB), { requestState, inputResponses: accepted });
    expect(stolen.error).toEqual({
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'invalid_request_state' },
    });
    expect(runs).toBe(0);

    // A refreshed token is another string, the same principal.
    const own = await modernRound(await token(ALICE), { requestState, inputResponses: accepted });
    expect(JSON.parse(own.result.content[0].text)).toEqual({ closed: true });
    expect(runs).toBe(1);
  });
});

describe('2025 era: the answer POST of another principal does not settle the question', () => {
  const post = (bearer: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-protocol-version': LEGACY_VERSION,
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify(body),
    });

  it('bob’s answer is 202 and ignored; alice’s, with a new token, settles it', async () => {
    const alice = await token(ALICE);
    await (await post(alice, initializeMessage({ elicitation: {} }, 'alice'))).text();
    const call = await post(alice, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'desk_close', arguments: { id: 'T-2' } },
    });
    const stream = streamedMessages(call);
    const question = await stream.next();
    expect(question).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Close T-2?' },
    });

    const bob = await post(await token(BOB), {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept' },
    });
    expect(bob.status).toBe(202);

    const own = await post(await token(ALICE), {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'decline' },
    });
    expect(own.status).toBe(202);
    const answer = await stream.next();
    expect(answer.id).toBe(7);
    expect(JSON.parse(answer.result.content[0].text)).toEqual({ closed: false });
    await stream.cancel();
  });
});

describe('tasks are bound to the principal that created them', () => {
  const rpc = (bearer: string, method: string, params: Record<string, unknown>) =>
    rpcOf(url, 'legacy', method, params, { authorization: `Bearer ${bearer}` });

  it('bob is told alice’s task does not exist; alice, with a new token, sees it', async () => {
    const created = await rpc(await token(ALICE), 'tools/call', {
      name: 'desk_report',
      arguments: {},
      task: {},
    });
    const { taskId } = created.result.task;
    const bob = await token(BOB);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/result', { taskId }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      expect((await rpc(bob, method, params)).error).toEqual({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    expect((await rpc(bob, 'tasks/list', {})).result.tasks).toEqual([]);

    const alice = await token(ALICE);
    const result = await rpc(alice, 'tasks/result', { taskId });
    expect(JSON.parse(result.result.content[0].text)).toEqual({ rows: 3 });
    const listed = (await rpc(alice, 'tasks/list', {})).result.tasks;
    expect(listed.map((task: { taskId: string }) => task.taskId)).toContain(taskId);
  });
});
