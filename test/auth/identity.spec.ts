/**
 * A signed-in caller's identity is its token's issuer, subject and client: with two trusted
 * authorization servers (real `oidc-provider` ones, on loopback) that both know a client named
 * `robot`, each server's `robot` is its own caller, and neither sees the other's tasks. The
 * verified principal carries its issuer to the tools too.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule, type ToolPrincipal } from '../../lib/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { rpc } from '../fixtures/mcp-http.js';

const RESOURCE = 'https://reports.example/mcp';
const SCOPES = ['reports:run'];
const ROBOT = { clientId: 'robot', clientSecret: 'robot-secret', scopes: SCOPES };

/** Runs until cancelled, as a task; or answers who called it. */
const report = defineRuntimeTool({
  description: 'Build a report',
  identity: { serviceName: 'reports', action: 'build', method: 'POST' },
  input: z.object({}),
  task: 'optional',
  handler: ({ signal, context }) =>
    new Promise((resolve) => {
      const principal = (context as { principal?: ToolPrincipal }).principal;
      signal.addEventListener('abort', () => resolve({ issuer: principal?.issuer }));
    }),
});
const whoami = defineRuntimeTool({
  description: 'Who am I',
  identity: { serviceName: 'session', action: 'whoami', method: 'GET' },
  input: z.object({}),
  handler: ({ context }) => {
    const { issuer, clientId } = (context as { principal: ToolPrincipal }).principal;
    return { issuer, clientId };
  },
});

let first: AuthorizationServer;
let second: AuthorizationServer;
beforeAll(async () => {
  [first, second] = await Promise.all(
    [0, 1].map(() =>
      startAuthorizationServer({ resources: [RESOURCE], scopes: SCOPES, clients: [ROBOT] }),
    ),
  );
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

describe.each(ADAPTERS)('two trusted issuers that both know a client "robot" (%s)', (adapter) => {
  const apps = new TestApps();
  let url: string;
  beforeAll(async () => {
    const app = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [report, whoami],
            mcp: { auth: { issuers: [first.issuer, second.issuer], resource: RESOURCE } },
          }),
        ],
      },
      adapter,
    );
    url = `${app.url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  const tokenOf = async (server: AuthorizationServer) => ({
    authorization: `Bearer ${(await server.clientCredentialsToken(ROBOT, { resource: RESOURCE, scope: SCOPES[0] })).access_token}`,
  });

  it('gives the tools the principal with its issuer', async () => {
    for (const server of [first, second]) {
      const answer = await rpc(
        url,
        'legacy',
        'tools/call',
        { name: 'session_whoami', arguments: {} },
        await tokenOf(server),
      );
      expect(JSON.parse(answer.result.content[0].text)).toEqual({
        issuer: server.issuer,
        clientId: 'robot',
      });
    }
  });

  it('keeps each issuer’s robot to its own tasks', async () => {
    const [fromFirst, fromSecond] = [await tokenOf(first), await tokenOf(second)];
    const created = await rpc(
      url,
      'legacy',
      'tools/call',
      { name: 'reports_build', arguments: {}, task: {} },
      fromFirst,
    );
    const { taskId } = created.result.task;
    const listed = await rpc(url, 'legacy', 'tasks/list', {}, fromSecond);
    expect(listed.result.tasks).toEqual([]);
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await rpc(url, 'legacy', method, { taskId }, fromSecond);
      expect({ method, error: refused.error }).toEqual({
        method,
        error: expect.objectContaining({ code: -32602 }),
      });
    }
    const own = await rpc(url, 'legacy', 'tasks/list', {}, fromFirst);
    expect(own.result.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([taskId]);
    const cancelled = await rpc(url, 'legacy', 'tasks/cancel', { taskId }, fromFirst);
    expect(cancelled.result.status).toBe('cancelled');
  });
});
