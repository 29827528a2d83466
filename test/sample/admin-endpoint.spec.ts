/**
 * The help desk sample's second MCP server, `/admin/mcp`: its own tools (the admin tools and two
 * help desk tools that `/mcp` serves too) and server info, behind the API key and an admin guard,
 * on Express and Fastify. And the sample starts clean: `npm run sample` prints no warning.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { freePort } from '../../sample/ports.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';
import { eraHeaders, listBody, post } from '../fixtures/mcp-http.js';

const [alice, bob] = SEEDED_USERS;

const apps = new TestApps();
const dirs: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await apps.closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-admin-'));
  dirs.push(dir);
  return dir;
}

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'admin-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  clients.push(client);
  return client;
}

const names = (list: Array<{ name: string }>) => list.map(({ name }) => name).sort();

describe.each(ADAPTERS)('the sample’s admin MCP server (%s)', (adapter) => {
  it('serves its own tools and server info to administrators only', async () => {
    const { url } = await apps.listen(
      {
        imports: [
          AppModule.forRoot({
            databaseFile: join(tempDir(), 'helpdesk.db'),
            requestStateKey: 'the help desk key shared by every instance',
          }),
        ],
      },
      adapter,
    );
    const admin = await connect(`${url}/admin/mcp`, alice.apiKey);
    expect(admin.getServerVersion()).toMatchObject({ name: 'helpdesk-admin' });
    expect(names((await admin.listTools()).tools)).toEqual([
      'admin_ticket_stats',
      'helpdesk_assign_ticket',
      'helpdesk_export_tickets',
    ]);
    const stats = await admin.callTool({ name: 'admin_ticket_stats', arguments: {} });
    expect(stats.isError).toBeFalsy();
    expect(stats.structuredContent).toEqual({
      open: expect.any(Number),
      pending: expect.any(Number),
      closed: expect.any(Number),
    });

    // The public server: no admin tool, the shared ones still there.
    const desk = await connect(`${url}/mcp`, alice.apiKey);
    expect(desk.getServerVersion()).toMatchObject({ name: 'helpdesk-sample' });
    const deskTools = names((await desk.listTools()).tools);
    expect(deskTools).not.toContain('admin_ticket_stats');
    expect(deskTools).toEqual(expect.arrayContaining(['helpdesk_assign_ticket']));
    await expect(desk.callTool({ name: 'admin_ticket_stats', arguments: {} })).rejects.toThrow(
      /Unknown tool "admin_ticket_stats"/,
    );

    // A user who is not an administrator, and no key at all.
    const headers = eraHeaders('legacy', 'tools/list');
    const notAdmin = await post(`${url}/admin/mcp`, listBody('legacy'), {
      ...headers,
      authorization: `Bearer ${bob.apiKey}`,
    });
    expect(notAdmin.status).toBe(403);
    expect((await post(`${url}/admin/mcp`, listBody('legacy'), headers)).status).toBe(401);
  });
});

describe('npm run sample', () => {
  it('starts without a warning', async () => {
    const port = await freePort();
    const { NODE_OPTIONS: _jest, HELPDESK_STATE_KEY: _key, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'sample/main.ts'], {
      cwd: process.cwd(),
      env: {
        ...inherited,
        PORT: String(port),
        HELPDESK_DB: join(tempDir(), 'helpdesk.db'),
        NO_COLOR: '1',
      },
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('Help desk sample is running.')) resolve();
        });
        void exited.then(() => reject(new Error(`The sample exited:\n${output}`)));
      });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(output).toContain(`http://127.0.0.1:${port}/admin/mcp`);
    expect(output).not.toMatch(/\bWARN\b/);
    expect(output).not.toContain('requestState');
  }, 60_000);
});
