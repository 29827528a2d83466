import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { TestApps, type AdapterName } from '../fixtures/apps.js';

const [alice, , gina] = SEEDED_USERS;
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

const apps = new TestApps();
const boot = (databaseFile: string, adapter: AdapterName = 'express') =>
  apps.listen({ imports: [AppModule.forRoot({ databaseFile })] }, adapter);

async function mcpClient(url: string, key: string) {
  const client = new Client({ name: 'sample-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: bearer(key) },
    }),
  );
  return client;
}

describe('the help desk sample', () => {
  const dirs: string[] = [];
  const tempDb = () => {
    const dir = mkdtempSync(join(tmpdir(), 'helpdesk-'));
    dirs.push(dir);
    return join(dir, 'helpdesk.db');
  };
  afterEach(async () => {
    await apps.closeAll();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  for (const adapter of ['express', 'fastify'] as const) {
    it(`serves the composed registry over MCP and keeps tenants apart (${adapter})`, async () => {
      const { url } = await boot(tempDb(), adapter);

      const acme = await mcpClient(url, alice.apiKey);
      const globex = await mcpClient(url, gina.apiKey);
      const names = (await acme.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual([
        'helpdesk_add_comment',
        'helpdesk_assign_ticket',
        'helpdesk_close_ticket',
        'helpdesk_create_ticket',
        'helpdesk_export_tickets',
        'helpdesk_get_ticket',
        'helpdesk_list_tickets',
        'helpdesk_search_articles',
        'helpdesk_update_ticket',
        'session_whoami',
      ]);

      const mine = await acme.callTool({ name: 'helpdesk_list_tickets', arguments: {} });
      const theirs = await globex.callTool({ name: 'helpdesk_list_tickets', arguments: {} });
      const ids = (result: typeof mine) =>
        (result.structuredContent as { tickets: { id: string }[] }).tickets.map((t) => t.id).sort();
      expect(ids(mine)).toEqual(['T-1001', 'T-1002']);
      expect(ids(theirs)).toEqual(['T-2001']);

      // Another tenant's ticket does not exist for this caller.
      const foreign = await acme.callTool({
        name: 'helpdesk_get_ticket',
        arguments: { id: 'T-2001' },
      });
      expect(foreign.isError).toBe(true);
      expect(JSON.parse((foreign.content as { text: string }[])[0].text)).toMatchObject({
        error: 'NOT_FOUND',
      });
      expect(JSON.stringify(foreign)).not.toContain('Export to CSV');

      // present.mcp: readable text, structured ticket beside it.
      const ticket = await acme.callTool({
        name: 'helpdesk_get_ticket',
        arguments: { id: 'T-1001' },
      });
      expect((ticket.content as { text: string }[])[0].text).toMatch(
        /^# T-1001: Cannot reset password/,
      );
      expect(ticket.structuredContent).toMatchObject({ id: 'T-1001', status: 'open' });

      // The replacement search ranks; the disabled delete is not there.
      const search = await acme.callTool({
        name: 'helpdesk_search_articles',
        arguments: { query: 'password reset email' },
      });
      expect(
        (search.structuredContent as { articles: { id: string; score: number }[] }).articles[0],
      ).toMatchObject({
        id: 'KB-1',
        score: expect.any(Number),
      });
      const deleted = acme.callTool({
        name: 'helpdesk_delete_ticket',
        arguments: { id: 'T-1001' },
      });
      // An unknown tool is JSON-RPC -32602 (invalid params), naming the closest tools.
      await expect(deleted).rejects.toBeInstanceOf(McpError);
      await expect(deleted).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message:
          'MCP error -32602: Unknown tool "helpdesk_delete_ticket". Did you mean ' +
          '"helpdesk_close_ticket", "helpdesk_create_ticket", "helpdesk_get_ticket"?',
      });

      // The request-scoped tool sees the caller and is built per call.
      const first = await acme.callTool({ name: 'session_whoami', arguments: {} });
      const second = await acme.callTool({ name: 'session_whoami', arguments: {} });
      expect(first.structuredContent).toMatchObject({ tenantId: 'acme', userId: 'alice' });
      expect((second.structuredContent as { instance: number }).instance).not.toBe(
        (first.structuredContent as { instance: number }).instance,
      );
      await acme.close();
      await globex.close();
    });
  }

  it('refuses MCP and REST without a valid key before any tool runs', async () => {
    const { url } = await boot(tempDb());
    const mcp = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    const rest = await fetch(`${url}/api/tickets`, { headers: bearer('hd_wrong') });
    expect(rest.status).toBe(401);
  });

  it('reads back through REST what MCP wrote, and keeps it across a restart', async () => {
    const databaseFile = tempDb();
    const first = await boot(databaseFile);

    const modern = new ModernClient(
      { name: 'sample-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new ModernTransport(new URL(`${first.url}/mcp`), {
        requestInit: { headers: bearer(alice.apiKey) },
      }),
    );
    const created = await modern.callTool({
      name: 'helpdesk_create_ticket',
      arguments: { title: 'Printer on fire', body: 'Smoke from tray 2.', priority: 'high' },
    });
    const id = (created.structuredContent as { id: string }).id;
    await modern.callTool({
      name: 'helpdesk_add_comment',
      arguments: { id, body: 'Evacuated the floor.' },
    });
    await modern.close();

    const rest = await fetch(`${first.url}/api/tickets/${id}`, { headers: bearer(alice.apiKey) });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({
      id,
      title: 'Printer on fire',
      createdBy: 'alice',
      comments: [{ author: 'alice', body: 'Evacuated the floor.' }],
    });
    const otherTenant = await fetch(`${first.url}/api/tickets/${id}`, {
      headers: bearer(gina.apiKey),
    });
    expect(otherTenant.status).toBe(404);

    await first.app.close();
    apps.forget(first.app);
    const second = await boot(databaseFile);
    const again = await fetch(`${second.url}/api/tickets/${id}`, { headers: bearer(alice.apiKey) });
    expect(await again.json()).toMatchObject({ id, title: 'Printer on fire' });
  });

  it('triages through two tools in-process and escalates what the knowledge base does not cover', async () => {
    const { url } = await boot(tempDb());
    const covered = await fetch(`${url}/api/tickets/T-1002/triage`, {
      method: 'POST',
      headers: bearer(alice.apiKey),
    });
    expect(await covered.json()).toMatchObject({
      ticket: { id: 'T-1002', priority: 'normal' },
      suggestions: [{ id: 'KB-2' }],
      escalated: false,
    });
    const created = await fetch(`${url}/api/tickets`, {
      method: 'POST',
      headers: { ...bearer(alice.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Zebra crossing', body: 'Quokka xylophone' }),
    });
    const { id } = (await created.json()) as { id: string };
    const uncovered = await fetch(`${url}/api/tickets/${id}/triage`, {
      method: 'POST',
      headers: bearer(alice.apiKey),
    });
    expect(await uncovered.json()).toMatchObject({
      ticket: { id, priority: 'high' },
      suggestions: [],
      escalated: true,
    });

    const invalid = await fetch(`${url}/api/tickets`, {
      method: 'POST',
      headers: { ...bearer(alice.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x' }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      error: 'VALIDATION_ERROR',
      details: { target: 'input' },
    });
  });
});
