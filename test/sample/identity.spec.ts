/**
 * Who calls the help desk sample, for what outlives one request: the identity is the principal
 * its context resolver makes of the API key's user, never the key's spelling nor the address.
 * Every client here comes from 127.0.0.1, as clients behind one proxy or NAT do: the tenants
 * stay apart all the same, and one user is one caller whichever header carries the key.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import {
  eraHeaders,
  initializeMessage,
  MODERN_META,
  raw,
  rpc,
  streamedMessages,
} from '../fixtures/mcp-http.js';

const [alice, bob, gina] = SEEDED_USERS;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const apiKey = (key: string) => ({ 'x-api-key': key });

describe.each(ADAPTERS)('the sample’s caller identity (%s)', (adapter) => {
  const apps = new TestApps();
  let dir: string;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'helpdesk-identity-'));
    const app = await apps.listen(
      { imports: [AppModule.forRoot({ databaseFile: join(dir, 'helpdesk.db') })] },
      adapter,
    );
    url = `${app.url}/mcp`;
  });
  afterAll(async () => {
    await apps.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the export as a 2025-era task; resolves to its id. */
  async function startExport(headers: Record<string, string>): Promise<string> {
    const answer = await rpc(
      url,
      'legacy',
      'tools/call',
      { name: 'helpdesk_export_tickets', arguments: {}, task: {} },
      headers,
    );
    expect(answer.result?.task?.status).toBe('working');
    return answer.result.task.taskId;
  }

  it('one user is one caller, whether the key comes as Authorization or as x-api-key', async () => {
    const taskId = await startExport(bearer(alice.apiKey));
    const read = await rpc(url, 'legacy', 'tasks/get', { taskId }, apiKey(alice.apiKey));
    expect(read.result).toMatchObject({ taskId });
    const listed = await rpc(url, 'legacy', 'tasks/list', {}, apiKey(alice.apiKey));
    expect(listed.result.tasks.map((task: { taskId: string }) => task.taskId)).toContain(taskId);
    await rpc(url, 'legacy', 'tasks/cancel', { taskId }, apiKey(alice.apiKey));
  });

  it('another tenant from the same address neither sees, reads nor cancels the task', async () => {
    const taskId = await startExport(bearer(alice.apiKey));
    for (const headers of [bearer(gina.apiKey), apiKey(gina.apiKey)]) {
      const listed = await rpc(url, 'legacy', 'tasks/list', {}, headers);
      expect(listed.result.tasks).toEqual([]);
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
        const refused = await rpc(url, 'legacy', method, { taskId }, headers);
        expect({ method, error: refused.error }).toEqual({
          method,
          error: expect.objectContaining({ code: -32602 }),
        });
      }
    }
    const still = await rpc(url, 'legacy', 'tasks/get', { taskId }, bearer(alice.apiKey));
    expect(still.result.status).toBe('working');
    await rpc(url, 'legacy', 'tasks/cancel', { taskId }, bearer(alice.apiKey));
  });

  it('one user through two proxy nodes (two addresses) is one caller', async () => {
    const taskId = await startExport(bearer(alice.apiKey));
    const fromOtherNode = await raw(url, {
      localAddress: '127.0.0.2',
      headers: { ...eraHeaders('legacy'), ...apiKey(alice.apiKey) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId } }),
    });
    expect(fromOtherNode.messages?.at(-1)?.result).toMatchObject({ taskId });
    await rpc(url, 'legacy', 'tasks/cancel', { taskId }, bearer(alice.apiKey));
  });

  it('another user of the same tenant is another caller too', async () => {
    const taskId = await startExport(bearer(alice.apiKey));
    const refused = await rpc(url, 'legacy', 'tasks/get', { taskId }, bearer(bob.apiKey));
    expect(refused.error).toMatchObject({ code: -32602 });
    await rpc(url, 'legacy', 'tasks/cancel', { taskId }, bearer(alice.apiKey));
  });

  /** One 2026-era call of `helpdesk_close_ticket` from a client that can answer questions. */
  const closeTicket = (headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
    rpc(
      url,
      'modern',
      'tools/call',
      {
        name: 'helpdesk_close_ticket',
        arguments: { id: 'T-1002' },
        ...extra,
        _meta: {
          ...MODERN_META,
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
      headers,
    );

  it('a 2026-era question asked of one user cannot be answered by another, whatever the key’s header', async () => {
    const first = await closeTicket(bearer(alice.apiKey));
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const answer = {
      requestState: first.result.requestState,
      inputResponses: { q0: { action: 'accept', content: {} } },
    };
    for (const headers of [bearer(gina.apiKey), apiKey(bob.apiKey)]) {
      const stolen = await closeTicket(headers, answer);
      expect(stolen.error).toMatchObject({
        code: -32602,
        message: 'Invalid or expired requestState',
      });
    }
    // The same user, with the key in the other header, answers it.
    const own = await closeTicket(apiKey(alice.apiKey), answer);
    expect(own.result.structuredContent).toMatchObject({
      closed: true,
      ticket: { id: 'T-1002', status: 'closed' },
    });
  });

  /** A raw 2025-era POST of one JSON-RPC message; the answer's stream, read message by message. */
  const post2025 = (headers: Record<string, string>, message: object) =>
    fetch(url, {
      method: 'POST',
      headers: { ...eraHeaders('legacy'), ...headers },
      body: JSON.stringify(message),
    });

  /** Starts the export as a plain 2025-era call with progress; resolves once it is running. */
  async function exportCall(headers: Record<string, string>, id: number) {
    const stream = streamedMessages(
      await post2025(headers, {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'helpdesk_export_tickets', arguments: {}, _meta: { progressToken: id } },
      }),
    );
    expect(await stream.next()).toMatchObject({ method: 'notifications/progress' });
    /** The call's answer, after any other notification. */
    const answer = async () => {
      for (;;) {
        const message = await stream.next();
        if (message.id === id) return message;
      }
    };
    return answer;
  }

  const cancel = (headers: Record<string, string>, requestId: number) =>
    post2025(headers, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: 'stop' },
    }).then((response) => response.status);

  it('another tenant’s 2025-era cancellation with the same request id leaves the call running; the user’s own stops it', async () => {
    const answered = await exportCall(apiKey(alice.apiKey), 7);
    expect(await cancel(apiKey(gina.apiKey), 7)).toBe(202);
    const whole = await answered();
    expect(whole.result.isError).toBeFalsy();
    expect(whole.result.structuredContent).toMatchObject({ count: 2 });

    const stopped = await exportCall(apiKey(alice.apiKey), 8);
    expect(await cancel(bearer(alice.apiKey), 8)).toBe(202);
    const cut = await stopped();
    expect(JSON.parse(cut.result.content[0].text)).toMatchObject({ error: 'REQUEST_ABORTED' });
  });

  it('another tenant’s initialize does not change what the user declared: the user is still asked', async () => {
    const initialize = (headers: Record<string, string>, capabilities: object) =>
      post2025(headers, initializeMessage(capabilities)).then((response) => response.text());
    await initialize(apiKey(alice.apiKey), { elicitation: {} });
    await initialize(apiKey(gina.apiKey), {});
    const stream = streamedMessages(
      await post2025(apiKey(alice.apiKey), {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'helpdesk_close_ticket', arguments: { id: 'T-1001' } },
      }),
    );
    const question = await stream.next();
    expect(question).toMatchObject({ method: 'elicitation/create' });
    const answered = await post2025(bearer(alice.apiKey), {
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'decline' },
    });
    expect(answered.status).toBe(202);
    const response = await stream.next();
    expect(JSON.parse(response.result.content[0].text)).toMatchObject({ closed: false });
  });
});
