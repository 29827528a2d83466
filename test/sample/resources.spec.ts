/**
 * The help desk sample's resources and prompt over MCP: the index of the tenant's articles at
 * `kb://articles` (listed), each article at `kb://articles/{slug}` with slug completion, a ticket
 * at `helpdesk://tickets/{id}`, and the `triage_ticket` prompt embedding the ticket; every tenant
 * sees and completes only its own.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';

const [alice, , gina] = SEEDED_USERS;
const apps = new TestApps();
const dirs: string[] = [];
afterEach(async () => {
  await apps.closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function boot(adapter: (typeof ADAPTERS)[number]) {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-resources-'));
  dirs.push(dir);
  const { url } = await apps.listen(
    { imports: [AppModule.forRoot({ databaseFile: join(dir, 'helpdesk.db') })] },
    adapter,
  );
  return new URL(`${url}/mcp`);
}

async function connect(generation: 'v1 (2025)' | 'v2 (2026-07-28)', url: URL, key: string) {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (generation === 'v1 (2025)') {
    const client = new ClientV1({ name: 'desk', version: '1.0.0' });
    await client.connect(new TransportV1(url, { requestInit }));
    return client as unknown as Client;
  }
  const client = new Client(
    { name: 'desk', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return client;
}

describe.each(ADAPTERS)('the sample’s resources and prompt (%s)', (adapter) => {
  it.each(['v1 (2025)', 'v2 (2026-07-28)'] as const)(
    'articles and tickets as resources, completed and read per tenant; the triage prompt (%s)',
    async (generation) => {
      const url = await boot(adapter);
      const acme = await connect(generation, url, alice.apiKey);
      const globex = await connect(generation, url, gina.apiKey);
      try {
        expect(
          (await acme.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        ).toEqual(['helpdesk://tickets/{id}', 'kb://articles/{slug}']);
        // resources/list is not empty: the index lists the tenant's articles with their URIs.
        expect((await acme.listResources()).resources).toEqual([
          expect.objectContaining({ uri: 'kb://articles', name: 'kb_index' }),
        ]);
        const index = await acme.readResource({ uri: 'kb://articles' });
        const indexText = (index.contents[0] as { text: string }).text;
        expect(indexText).toContain('(kb://articles/password-reset-emails)');
        expect(indexText).not.toContain('large-csv-exports');
        const theirIndex = await globex.readResource({ uri: 'kb://articles' });
        expect((theirIndex.contents[0] as { text: string }).text).toContain(
          '(kb://articles/large-csv-exports)',
        );

        const slugs = await acme.complete({
          ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
          argument: { name: 'slug', value: '' },
        });
        expect(slugs.completion.values).toContain('password-reset-emails');
        const read = await acme.readResource({ uri: 'kb://articles/password-reset-emails' });
        expect(read.contents).toEqual([
          {
            uri: 'kb://articles/password-reset-emails',
            mimeType: 'text/markdown',
            text: expect.stringMatching(/^# Password reset emails\n/),
          },
        ]);
        // Another tenant neither completes nor reads acme's article.
        const theirs = await globex.complete({
          ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
          argument: { name: 'slug', value: '' },
        });
        expect(theirs.completion.values).not.toContain('password-reset-emails');
        await expect(
          globex.readResource({ uri: 'kb://articles/password-reset-emails' }),
        ).rejects.toMatchObject({ code: -32602 });

        const ids = await acme.complete({
          ref: { type: 'ref/prompt', name: 'triage_ticket' },
          argument: { name: 'id', value: 't-100' },
        });
        expect(ids.completion.values).toContain('T-1001');
        const prompt = await acme.getPrompt({ name: 'triage_ticket', arguments: { id: 'T-1001' } });
        expect(prompt.description).toMatch(/^Triage T-1001: /);
        expect(prompt.messages[0].content).toMatchObject({
          type: 'resource',
          resource: { uri: 'helpdesk://tickets/T-1001', mimeType: 'application/json' },
        });
        const ticket = await acme.readResource({ uri: 'helpdesk://tickets/T-1001' });
        expect(JSON.parse((ticket.contents[0] as { text: string }).text)).toMatchObject({
          id: 'T-1001',
        });
      } finally {
        await acme.close();
        await globex.close();
      }
    },
  );
});
