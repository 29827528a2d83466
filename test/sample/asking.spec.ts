/**
 * The help desk sample's tools that ask, over MCP with the official clients of both generations:
 * closing a ticket asks for confirmation, creating one without a priority asks for the priority.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';

const [alice] = SEEDED_USERS;
const headers = { Authorization: `Bearer ${alice.apiKey}` };
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

const apps = new TestApps();
const dirs: string[] = [];
afterEach(async () => {
  await apps.closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function boot(adapter: (typeof ADAPTERS)[number]) {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-asking-'));
  dirs.push(dir);
  const { url } = await apps.listen(
    {
      imports: [
        AppModule.forRoot({
          databaseFile: join(dir, 'helpdesk.db'),
          requestStateKey: 'the help desk key shared by every instance',
        }),
      ],
    },
    adapter,
  );
  return new URL(`${url}/mcp`);
}

/** A client of `generation` whose user answers from `answers`, and the questions it was asked. */
async function connect(generation: 'v1 (2025)' | 'v2 (2026-07-28)', url: URL, answers: Answer[]) {
  const asked: Array<{ message: string; requestedSchema: unknown }> = [];
  const answer = (params: unknown) => {
    asked.push(params as (typeof asked)[number]);
    return answers.shift() ?? { action: 'cancel' };
  };
  if (generation === 'v1 (2025)') {
    const client = new ClientV1(
      { name: 'desk', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(
      ElicitRequestSchema,
      async (request) => answer(request.params) as never,
    );
    await client.connect(new TransportV1(url, { requestInit: { headers } }));
    return { client: client as unknown as Client, asked };
  }
  const client = new Client(
    { name: 'desk', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler(
    'elicitation/create',
    async (request) => answer(request.params) as never,
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return { client, asked };
}

describe.each(ADAPTERS)('the sample’s tools that ask (%s)', (adapter) => {
  it.each(['v1 (2025)', 'v2 (2026-07-28)'] as const)(
    'closing a ticket asks for confirmation; creating one without a priority asks for it (%s)',
    async (generation) => {
      const url = await boot(adapter);
      const { client, asked } = await connect(generation, url, [
        { action: 'decline' },
        { action: 'accept' },
        { action: 'accept', content: { priority: 'high' } },
      ]);

      const kept = await client.callTool({
        name: 'helpdesk_close_ticket',
        arguments: { id: 'T-1001' },
      });
      expect(kept.structuredContent).toMatchObject({ closed: false, ticket: { status: 'open' } });
      const closed = await client.callTool({
        name: 'helpdesk_close_ticket',
        arguments: { id: 'T-1001' },
      });
      expect(closed.structuredContent).toMatchObject({
        closed: true,
        ticket: { status: 'closed' },
      });

      const created = await client.callTool({
        name: 'helpdesk_create_ticket',
        arguments: { title: 'VPN drops every hour', body: 'Since Monday.' },
      });
      expect(created.structuredContent).toMatchObject({
        title: 'VPN drops every hour',
        priority: 'high',
      });
      await client.close();

      expect(asked.map(({ message }) => message)).toEqual([
        expect.stringMatching(/^Close T-1001 “.+”\?/),
        expect.stringMatching(/^Close T-1001 “.+”\?/),
        'What priority should “VPN drops every hour” have?',
      ]);
      expect(asked[2].requestedSchema).toEqual({
        type: 'object',
        properties: {
          priority: {
            type: 'string',
            title: 'Priority',
            enum: ['low', 'normal', 'high'],
            default: 'normal',
          },
        },
      });
    },
  );
});

it('a REST caller, who cannot be asked, gets the normal priority', async () => {
  const url = await boot('express');
  const created = await fetch(new URL('/api/tickets', url), {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Desk lamp flickers', body: 'Third floor.' }),
  });
  expect(created.status).toBe(201);
  expect(await created.json()).toMatchObject({ title: 'Desk lamp flickers', priority: 'normal' });
});
