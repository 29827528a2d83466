/**
 * A handler's `confirm` and `elicit` for 2025-era clients: over stateless HTTP the endpoint
 * remembers the capabilities of each caller's `initialize`, writes `elicitation/create` on the
 * call's own stream and routes the answer POST to the waiting question; over stdio the SDK's own
 * request carries it. Clients that cannot answer get `USER_INPUT_UNAVAILABLE` and no question;
 * an unanswered question ends with `REQUEST_TIMEOUT`; an answer from another caller is ignored;
 * and every way out forgets the question.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, type ToolInvoker } from '../../lib/core/index.js';
import { createMcpHttpHandler, serveStdio } from '../../lib/mcp/index.js';
import { LegacyElicitation } from '../../lib/mcp/eras/2025-11-25/asking.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { InMemoryInstanceBus } from '../../lib/core/instance-bus.js';
import type { ToolQuestion } from '../../lib/core/asking.js';
import {
  ACCEPT,
  initializeMessage,
  LEGACY_VERSION,
  streamedMessages,
} from '../fixtures/mcp-http.js';
import { textJson } from './support.js';
import { waitFor } from '../fixtures/timing.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { ToolsModule } from '../../lib/index.js';

/** The JSON of a result's text, whichever client generation's result type it has. */
const json = (result: unknown) => textJson(result as never);

const Contact = z.object({ username: z.string(), email: z.email() });
const runs: string[] = [];
/** The calls `afterToolCall` saw end, with their error code. */
const ended: string[] = [];

function tools() {
  return [
    defineRuntimeTool({
      description: 'Delete a record once the user confirms',
      identity: { serviceName: 'records', action: 'delete', method: 'DELETE' },
      input: z.object({ id: z.string() }),
      asks: { confirm: true },
      handler: async ({ input, confirm }) => {
        runs.push(`delete ${input.id}`);
        return { deleted: await confirm(`Delete ${input.id}?`) };
      },
    }),
    defineRuntimeTool({
      description: 'Ask for a contact',
      identity: { serviceName: 'records', action: 'contact', method: 'POST' },
      input: z.object({}),
      asks: { elicit: [Contact] },
      handler: async ({ elicit }) => {
        runs.push('contact');
        const answer = await elicit({ message: 'Who are you?', schema: Contact });
        return answer.action === 'accept' ? answer.content : { action: answer.action };
      },
    }),
  ];
}

/** The application's own idea of who calls: its API key (a signed-in caller needs none). */
const byApiKey = (request: unknown) => (request as IncomingMessage).headers.authorization;

async function listen(ttlSeconds?: number, { anonymous = false, warned = [] as string[] } = {}) {
  const invoker: ToolInvoker = createToolInvoker(tools(), {
    hooks: {
      afterToolCall: ({ name, result }) =>
        void ended.push(`${name} ${result.ok ? 'ok' : result.error.code}`),
    },
  });
  const handler = createMcpHttpHandler(invoker, {
    ...(ttlSeconds !== undefined && { requestState: { key: 'k'.repeat(32), ttlSeconds } }),
    ...(!anonymous && { identify: byApiKey }),
    logger: { error: () => undefined, warn: (message: string) => void warned.push(message) },
  });
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, server, invoker };
}

/** A 2025-era client (with or without elicitation) and what it posted. */
async function clientOf(
  url: string,
  options: { elicitation?: boolean; answer?: (message: string, signal: AbortSignal) => unknown },
) {
  const posted: unknown[] = [];
  const client = new ClientV1(
    { name: 'records', version: '1.0.0' },
    { capabilities: options.elicitation === false ? {} : { elicitation: {} } },
  );
  if (options.elicitation !== false) {
    client.setRequestHandler(
      ElicitRequestSchema,
      async (request, extra) =>
        (options.answer ?? (() => ({ action: 'accept' })))(
          (request.params as { message: string }).message,
          extra.signal,
        ) as never,
    );
  }
  await client.connect(
    new TransportV1(new URL(url), {
      requestInit: { headers: { authorization: 'Bearer ada' } },
      fetch: async (input, init) => {
        if (typeof init?.body === 'string') posted.push(JSON.parse(init.body));
        return fetch(input, init);
      },
    }),
  );
  return { client, posted };
}

let app: Awaited<ReturnType<typeof listen>>;
const servers: Server[] = [];
beforeAll(async () => {
  app = await listen();
  servers.push(app.server);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});
afterEach(() => {
  runs.length = 0;
  ended.length = 0;
});

describe('2025-era elicitation over stateless HTTP', () => {
  it('sends the question on the call’s stream with its own id; the answer POST is answered 202', async () => {
    const { client, posted } = await clientOf(app.url, {
      answer: () => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }),
    });
    const result = await client.callTool({ name: 'records_contact', arguments: {} });
    await client.close();
    expect(json(result)).toEqual({ username: 'ada', email: 'ada@example.com' });
    const answer = posted.find(
      (message) => (message as { result?: unknown }).result !== undefined,
    ) as { id: string; result: unknown };
    expect(answer.id).toMatch(/^tw-elicit-[0-9a-f-]{36}$/);
    expect(answer.result).toEqual({
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.com' },
    });
  });

  it('validates accepted content with the schema: VALIDATION_ERROR, not a success', async () => {
    const { client } = await clientOf(app.url, {
      answer: () => ({ action: 'accept', content: { username: 'ada', email: 'not an email' } }),
    });
    const result = await client.callTool({ name: 'records_contact', arguments: {} });
    await client.close();
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({ error: 'VALIDATION_ERROR' });
  });

  it('a client without the elicitation capability gets USER_INPUT_UNAVAILABLE and no question', async () => {
    const { client, posted } = await clientOf(app.url, { elicitation: false });
    const result = await client.callTool({ name: 'records_delete', arguments: { id: 'r1' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({ error: 'USER_INPUT_UNAVAILABLE' });
    expect(runs).toEqual(['delete r1']);
    // The client answered nothing: it was asked nothing.
    expect(
      posted.filter((message) => (message as { method?: unknown }).method === undefined),
    ).toEqual([]);
  });

  it('concurrent calls of one client each get their own answer', async () => {
    const { client } = await clientOf(app.url, {
      answer: (message) => ({ action: message === 'Delete r2?' ? 'accept' : 'decline' }),
    });
    const [one, two, three] = await Promise.all(
      ['r1', 'r2', 'r3'].map((id) =>
        client.callTool({ name: 'records_delete', arguments: { id } }),
      ),
    );
    await client.close();
    expect([one, two, three].map(json)).toEqual([
      { deleted: false },
      { deleted: true },
      { deleted: false },
    ]);
  });

  it('an unanswered question ends the call with REQUEST_TIMEOUT and tells the client to stop asking', async () => {
    const slow = await listen(1);
    servers.push(slow.server);
    let stopped!: () => void;
    const told = new Promise<void>((resolve) => (stopped = resolve));
    const { client } = await clientOf(slow.url, {
      answer: (_message, signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            stopped();
            reject(new Error('the server cancelled the question'));
          }),
        ),
    });
    const result = await client.callTool({ name: 'records_delete', arguments: { id: 'r9' } });
    expect(result.isError).toBe(true);
    expect(json(result)).toMatchObject({ error: 'REQUEST_TIMEOUT', retryable: true });
    await told; // notifications/cancelled reached the client's handler
    await client.close();
  });
});

/** Raw 2025-era HTTP, to answer a question as another caller would. */
describe('the answer POST', () => {
  const headers = (authorization: string) => ({
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': LEGACY_VERSION,
    authorization,
  });
  const post = (authorization: string, body: unknown) =>
    fetch(app.url, { method: 'POST', headers: headers(authorization), body: JSON.stringify(body) });

  it('from another caller is answered 202 and ignored; the asking caller’s settles the question', async () => {
    const initialize = await post('Bearer alice', initializeMessage({ elicitation: {} }, 'raw'));
    await initialize.text();
    const call = await post('Bearer alice', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'records_delete', arguments: { id: 'r7' } },
    });
    const stream = streamedMessages(call);
    const question = await stream.next();
    expect(question).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Delete r7?', requestedSchema: { type: 'object', properties: {} } },
    });

    const forged = await post('Bearer mallory', {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept' },
    });
    expect(forged.status).toBe(202);
    expect(await forged.text()).toBe('');

    const answered = await post('Bearer alice', {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'decline' },
    });
    expect(answered.status).toBe(202);
    const response = await stream.next();
    expect(response).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
    expect(response.result.isError).toBeFalsy();
    expect(JSON.parse(response.result.content[0].text)).toEqual({ deleted: false });

    // The question is gone: a late answer changes nothing and still gets 202.
    const late = await post('Bearer alice', {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept' },
    });
    expect(late.status).toBe(202);
  });

  it('a client that goes before it answers ends only its call: the server answers the next request', async () => {
    await (await post('Bearer alice', initializeMessage({ elicitation: {} }, 'raw'))).text();
    const gone = new AbortController();
    const call = await fetch(app.url, {
      method: 'POST',
      headers: headers('Bearer alice'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'records_delete', arguments: { id: 'r8' } },
      }),
      signal: gone.signal,
    });
    const stream = streamedMessages(call);
    expect(await stream.next()).toMatchObject({ method: 'elicitation/create' });
    // The question's stream closes under it: withdrawing the question writes to a closed stream.
    gone.abort();
    await waitFor(() => ended.length > 0);
    expect(ended).toEqual(['records_delete REQUEST_ABORTED']);
    const next = await post('Bearer alice', {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/list',
      params: {},
    });
    expect(next.status).toBe(200);
    expect(runs).toEqual(['delete r8']);
  });
});

describe.each(['node:http', ...ADAPTERS] as const)(
  'what an initialize notes, per caller (%s)',
  (host) => {
    const apps = new TestApps();
    afterAll(() => apps.closeAll());

    /** An endpoint on `host` that knows callers by `x-user`, with a bus that records its keys. */
    async function endpoint() {
      const keys = new Set<string>();
      const bus = new (class extends InMemoryInstanceBus {
        override remember(key: string, value: string, ttlMs: number) {
          keys.add(key);
          return super.remember(key, value, ttlMs);
        }
      })();
      const byUser = (request: unknown) =>
        (request as IncomingMessage).headers['x-user'] as string | undefined;
      if (host !== 'node:http') {
        const { url } = await apps.listen(
          { imports: [ToolsModule.forRoot({ registry: tools(), mcp: { bus, identify: byUser } })] },
          host,
        );
        return { keys, url: `${url}/mcp` };
      }
      const server = createServer(
        createMcpHttpHandler(createToolInvoker(tools()), {
          bus,
          identify: byUser,
          logger: { error: () => undefined },
        }),
      );
      servers.push(server);
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      return { keys, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
    }

    it('a flood with distinct credentials notes nothing for nobody, and one key for one caller', async () => {
      const { keys, url } = await endpoint();
      const initialize = (headers: Record<string, string>) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: ACCEPT,
            'mcp-protocol-version': LEGACY_VERSION,
            ...headers,
          },
          body: JSON.stringify(initializeMessage({ elicitation: {} }, 'flood')),
        }).then((response) => response.text());
      for (let i = 0; i < 50; i++) await initialize({ authorization: `Bearer flood-${i}` });
      expect(keys.size).toBe(0);
      for (let i = 0; i < 50; i++) {
        await initialize({ authorization: `Bearer flood-${i}`, 'x-user': 'ada' });
      }
      expect(keys.size).toBe(1);
    });
  },
);

describe('a 2025-era question over HTTP from a request that names no caller', () => {
  it("fails with USER_INPUT_UNAVAILABLE in the client's words, logs the options once, and asks nothing", async () => {
    const warned: string[] = [];
    const anonymous = await listen(undefined, { anonymous: true, warned });
    servers.push(anonymous.server);
    const { client, posted } = await clientOf(anonymous.url, {});
    const result = await client.callTool({ name: 'records_delete', arguments: { id: 'r3' } });
    await client.callTool({ name: 'records_delete', arguments: { id: 'r4' } });
    await client.close();
    expect(json(result)).toEqual({
      error: 'USER_INPUT_UNAVAILABLE',
      message: expect.stringContaining('names no caller'),
      retryable: false,
      hint:
        'Send the credentials this server knows callers by, or use a client of the ' +
        '2026-07-28 revision, which answers within the same call.',
    });
    expect(JSON.stringify(result)).not.toContain('mcp.auth');
    // Once, whatever the number of calls (the other warning is the missing requestState key).
    expect(warned.filter((line) => line.includes('names no caller'))).toEqual([
      MCP_MESSAGES.anonymousQuestion('records_delete'),
    ]);
    expect(posted.filter((message) => (message as { result?: unknown }).result)).toEqual([]);
  });
});

describe('2025-era elicitation over stdio (the SDK’s own request)', () => {
  it('confirm and elicit reach the client; a client without the capability gets USER_INPUT_UNAVAILABLE', async () => {
    for (const elicitation of [true, false]) {
      const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
      const handle = serveStdio(createToolInvoker(tools()), {
        protocol: 'legacy',
        transport: serverSide,
      });
      const client = new ClientV1(
        { name: 'records', version: '1.0.0' },
        { capabilities: elicitation ? { elicitation: {} } : {} },
      );
      const asked: string[] = [];
      if (elicitation) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          const { message } = request.params as { message: string };
          asked.push(message);
          return message === 'Who are you?'
            ? { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }
            : { action: 'accept' };
        });
      }
      await client.connect(clientSide as never);
      const deleted = await client.callTool({ name: 'records_delete', arguments: { id: 's1' } });
      const contact = await client.callTool({ name: 'records_contact', arguments: {} });
      await client.close();
      await handle.close();
      if (elicitation) {
        expect(json(deleted)).toEqual({ deleted: true });
        expect(json(contact)).toEqual({ username: 'ada', email: 'ada@example.com' });
        expect(asked).toEqual(['Delete s1?', 'Who are you?']);
      } else {
        expect(json(deleted)).toMatchObject({ error: 'USER_INPUT_UNAVAILABLE' });
        expect(json(contact)).toMatchObject({ error: 'USER_INPUT_UNAVAILABLE' });
      }
    }
  });
});

describe('LegacyElicitation forgets every question, whichever way it ends', () => {
  const question: ToolQuestion = {
    kind: 'confirm',
    message: 'Sure?',
    call: { name: 'records_delete' } as ToolQuestion['call'],
  };
  afterEach(() => {
    jest.useRealTimers();
  });

  it('answered, timed out, abandoned, or unsendable', async () => {
    jest.useFakeTimers();
    const questions = new LegacyElicitation(5_000, new InMemoryInstanceBus(), console);
    const sent: Array<Record<string, any>> = [];
    const send = async (message: Record<string, unknown>) => void sent.push(message);

    const answered = questions.ask(question, 'alice', new AbortController().signal, send);
    await Promise.resolve();
    expect(questions.size).toBe(1);
    await expect(
      questions.settle({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept' } }, 'alice'),
    ).resolves.toBeUndefined();
    await expect(answered).resolves.toEqual({ action: 'accept', content: {} });
    expect(questions.size).toBe(0);

    const timedOut = questions.ask(question, 'alice', new AbortController().signal, send);
    const timedOutResult = expect(timedOut).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    jest.advanceTimersByTime(5_000);
    await timedOutResult;
    expect(questions.size).toBe(0);
    expect(sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent.at(-2)!.id },
    });

    const controller = new AbortController();
    const abandoned = questions.ask(question, 'alice', controller.signal, send);
    controller.abort(new Error('the call ended'));
    await expect(abandoned).rejects.toThrow('the call ended');
    expect(questions.size).toBe(0);

    const unsendable = questions.ask(question, 'alice', new AbortController().signal, () =>
      Promise.reject(new Error('stream closed')),
    );
    await expect(unsendable).rejects.toThrow('stream closed');
    expect(questions.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a client’s error answer fails the question with USER_INPUT_UNAVAILABLE', async () => {
    const questions = new LegacyElicitation(5_000, new InMemoryInstanceBus(), console);
    let id = '';
    const asked = questions.ask(
      question,
      'alice',
      new AbortController().signal,
      async (message) => {
        id = message.id as string;
      },
    );
    await Promise.resolve();
    questions.settle(
      { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
      'alice',
    );
    await expect(asked).rejects.toMatchObject({
      code: 'USER_INPUT_UNAVAILABLE',
      message: expect.stringContaining('Method not found'),
    });
  });

  it('remembers elicitation from initialize, per caller; a later initialize without it forgets', async () => {
    const questions = new LegacyElicitation(5_000, new InMemoryInstanceBus(), console);
    const initialize = (capabilities: object) => initializeMessage(capabilities);
    await questions.remember('alice', initialize({ elicitation: {} }));
    await questions.remember('bob', initialize({}));
    await questions.remember('carol', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(
      await Promise.all(['alice', 'bob', 'carol'].map((who) => questions.canAsk(who))),
    ).toEqual([true, false, false]);
    await questions.remember('alice', initialize({ sampling: {} }));
    expect(await questions.canAsk('alice')).toBe(false);
  });
});
