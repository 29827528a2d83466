/**
 * `toolwright/mcp` without Nest signs callers in the same way: the metadata, the 401 challenge
 * before the body is read, the principal in the calls' context, the step-up challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { z } from 'zod';
import {
  createToolInvoker,
  definePrompt,
  defineResource,
  defineRuntimeTool,
  type ToolPrincipal,
} from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import {
  callBody,
  closeServer,
  eraHeaders,
  finalMessage,
  listBody,
  post,
  raw,
  toolPayload,
} from '../fixtures/mcp-http.js';

const RESOURCE = 'https://notes.example/mcp';
const CLIENT = { clientId: 'robot', clientSecret: 'robot-secret' };

const whoAmI = defineRuntimeTool({
  description: 'Who am I',
  identity: { serviceName: 'session', action: 'who_am_i', method: 'GET' },
  input: z.object({}),
  scopes: ['notes:read'],
  handler: ({ context }) => {
    const principal = (context as { principal?: ToolPrincipal }).principal;
    return { clientId: principal?.clientId, scopes: principal?.scopes };
  },
});
const erase = defineRuntimeTool({
  description: 'Erase everything',
  identity: { serviceName: 'notes', action: 'erase', method: 'DELETE' },
  input: z.object({}),
  scopes: ['notes:admin'],
  handler: () => ({ erased: true }),
});

const adminNotes = defineResource({
  uri: 'notes://admin',
  name: 'admin_notes',
  scopes: ['notes:admin'],
  read: () => 'the admin notes',
});
const adminPrompt = definePrompt({
  name: 'admin_prompt',
  description: 'Review the admin notes',
  scopes: ['notes:admin'],
  args: z.object({}),
  get: () => 'Review the admin notes.',
});

let as: AuthorizationServer;
let server: Server;
let listener: McpRequestListener;
let base: string;

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: [RESOURCE],
    scopes: ['notes:read', 'notes:admin'],
    clients: [{ ...CLIENT, scopes: ['notes:read', 'notes:admin'] }],
  });
  listener = createMcpHttpHandler(createToolInvoker([whoAmI, erase, adminNotes, adminPrompt]), {
    auth: { issuers: as.issuer, resource: RESOURCE, scopesSupported: ['notes:read'] },
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await listener?.close({ graceMs: 0 });
  await closeServer(server);
  await as?.close();
});

const token = async (scope: string) =>
  (await as.clientCredentialsToken(CLIENT, { resource: RESOURCE, scope })).access_token;

describe('createMcpHttpHandler with auth', () => {
  it('serves the metadata on the well-known path routed to it', async () => {
    const answer = await raw(`${base}/.well-known/oauth-protected-resource/mcp`, { method: 'GET' });
    expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({
      status: 200,
      body: {
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        scopes_supported: ['notes:read'],
      },
    });
  });

  it('answers a request without a token 401 before reading its body', async () => {
    const answer = await post(`${base}/mcp`, '{"broken', eraHeaders('legacy', 'tools/list'));
    expect({ status: answer.status, challenge: answer.headers['www-authenticate'] }).toEqual({
      status: 401,
      challenge:
        'Bearer scope="notes:read", resource_metadata="https://notes.example/.well-known/oauth-protected-resource/mcp"',
    });
  });

  it('runs a call with the principal in its context, lists by scope, and challenges a missing scope', async () => {
    const reader = { authorization: `Bearer ${await token('notes:read')}` };
    const list = await post(`${base}/mcp`, listBody('legacy'), {
      ...eraHeaders('legacy', 'tools/list'),
      ...reader,
    });
    expect(list.messages!.at(-1).result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'session_who_am_i',
    ]);
    const call = await post(`${base}/mcp`, callBody('modern', 'session_who_am_i', {}), {
      ...eraHeaders('modern', 'tools/call', 'session_who_am_i'),
      ...reader,
    });
    expect(toolPayload(call)).toEqual({
      isError: false,
      json: { clientId: CLIENT.clientId, scopes: ['notes:read'] },
    });
    const erased = await post(`${base}/mcp`, callBody('legacy', 'notes_erase', {}), {
      ...eraHeaders('legacy'),
      ...reader,
    });
    expect(erased.status).toBe(403);
    expect(erased.headers['www-authenticate']).toMatch(
      /^Bearer error="insufficient_scope", error_description="This call needs the scopes notes:admin\.", scope="notes:read notes:admin"/,
    );
  });

  it.each([
    ['resources/read', { uri: 'notes://admin' }],
    ['prompts/get', { name: 'admin_prompt', arguments: {} }],
  ] as const)(
    'challenges a %s its token lacks the scopes of to step up, before it runs',
    async (method, params) => {
      const headers = { authorization: `Bearer ${await token('notes:read')}` };
      const body = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
      const refused = await post(`${base}/mcp`, body(1), {
        ...eraHeaders('legacy', method),
        ...headers,
      });
      expect(refused.status).toBe(403);
      expect(refused.headers['www-authenticate']).toMatch(
        /^Bearer error="insufficient_scope".*scope="notes:read notes:admin"/,
      );
      const admin = { authorization: `Bearer ${await token('notes:read notes:admin')}` };
      const served = await post(`${base}/mcp`, body(2), {
        ...eraHeaders('legacy', method),
        ...admin,
      });
      expect(served.status).toBe(200);
      expect(JSON.stringify(finalMessage(served)?.result)).toContain('admin notes');
    },
  );
});
