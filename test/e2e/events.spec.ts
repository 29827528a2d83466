import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  ToolEvents,
  ToolInvoker,
  ToolsModule,
  type ToolCallEvent,
  type ToolsModuleOptions,
} from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';
import { CatalogModule, CatalogTools, pingTool } from '../fixtures/catalog.js';
import { Recorder, TenantPolicy, VaultTools } from '../fixtures/guarded.js';

const apps = new TestApps();
afterEach(async () => {
  jest.restoreAllMocks();
  await apps.closeAll();
});

async function boot(options: Omit<ToolsModuleOptions, 'registry'> = {}) {
  const app = await apps.init({
    imports: [
      CatalogModule,
      ToolsModule.forRoot({ registry: [CatalogTools, pingTool, VaultTools], ...options }),
    ],
    providers: [Recorder, TenantPolicy, VaultTools],
  });
  return { tools: app.get(ToolInvoker), events: app.get(ToolEvents) };
}

describe('ToolEvents', () => {
  it('emits exactly one event per call, for successes and failures', async () => {
    const { tools, events } = await boot();
    const seen: ToolCallEvent[] = [];
    const subscription = events.events$.subscribe((event) => seen.push(event));

    const ok = await tools.invoke<{ products: unknown[] }>(
      'catalog_list',
      {},
      { transport: 'AGENT' },
    );
    const invalid = await tools.invoke(
      'catalog_get',
      { id: 42 },
      { transport: 'MCP', source: 'mcp' },
    );
    const failed = await tools.invoke(
      'vault_invoice',
      { id: 'inv_1' },
      { transport: 'AGENT', source: 'agent', context: { tenantId: 'acme' } },
    );
    const cli = await tools.invoke('health_ping', {}, { transport: 'CLI', source: 'cli' });
    // An unknown tool is not a call: it rejects before anything runs, and emits nothing.
    await expect(
      tools.invoke('catalog_lst', {}, { transport: 'AGENT', source: 'agent' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await new Promise((resolve) => setImmediate(resolve));
    subscription.unsubscribe();

    expect([ok.ok, invalid.ok, failed.ok, cli.ok]).toEqual([true, false, false, true]);
    expect(seen).toEqual([
      {
        name: 'catalog_list',
        kind: 'tool',
        identity: { serviceName: 'catalog', action: 'list', method: 'GET', meta: { team: 'shop' } },
        transport: 'AGENT',
        source: 'internal',
        ok: true,
        durationMs: expect.any(Number),
        callId: expect.any(String),
        depth: 0,
      },
      expect.objectContaining({
        name: 'catalog_get',
        kind: 'tool',
        transport: 'MCP',
        source: 'mcp',
        ok: false,
        errorCode: 'VALIDATION_ERROR',
      }),
      expect.objectContaining({
        name: 'vault_invoice',
        identity: { serviceName: 'vault', action: 'invoice', method: 'GET' },
        transport: 'AGENT',
        source: 'agent',
        ok: false,
        errorCode: 'NOT_FOUND',
      }),
      expect.objectContaining({ name: 'health_ping', transport: 'CLI', source: 'cli', ok: true }),
    ]);
    expect(seen[0]).not.toHaveProperty('errorCode');
    for (const event of seen) expect(event.durationMs).toBeGreaterThanOrEqual(0);
    expect(new Set(seen.map((event) => event.callId)).size).toBe(4);
  });

  it("carries the call's id, as the handler saw it", async () => {
    const { tools, events } = await boot();
    const seen: ToolCallEvent[] = [];
    const subscription = events.events$.subscribe((event) => seen.push(event));
    const result = await tools.invokeOrThrow<{ callId: string }>(
      'vault_open',
      {},
      { transport: 'AGENT', context: { tenantId: 'acme' } },
    );
    subscription.unsubscribe();
    expect(seen).toEqual([expect.objectContaining({ name: 'vault_open', callId: result.callId })]);
  });

  it('is emitted before the caller sees the result', async () => {
    const { tools, events } = await boot();
    let emitted = 0;
    const subscription = events.events$.subscribe(() => emitted++);
    await tools.invoke('catalog_list', {}, { transport: 'AGENT' });
    expect(emitted).toBe(1);
    subscription.unsubscribe();
  });
});

describe('logCalls', () => {
  const callLines = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls
      .map(([message]) => String(message))
      .filter((line) => /^(catalog|vault|health)_/.test(line));

  it('logs one line per call through Nest Logger', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const { tools } = await boot({ logCalls: true });
    await tools.invoke('catalog_list', {}, { transport: 'AGENT' });
    await tools.invoke(
      'vault_crash',
      {},
      { transport: 'MCP', source: 'mcp', context: { tenantId: 'a' } },
    );
    await tools.invoke('health_ping', {}, { transport: 'CLI', source: 'cli' });
    expect(callLines(log)).toEqual([
      expect.stringMatching(/^catalog_list AGENT\/internal ok \d+\.\dms$/),
      expect.stringMatching(/^vault_crash MCP\/mcp INTERNAL_SERVER_ERROR \d+\.\dms$/),
      expect.stringMatching(/^health_ping CLI\/cli ok \d+\.\dms$/),
    ]);
    // Through a ToolsModule logger.
    const contexts = log.mock.contexts.filter((_, i) =>
      /^(catalog|vault|health)_/.test(String(log.mock.calls[i][0])),
    );
    expect(contexts.map((logger) => (logger as unknown as { context: string }).context)).toEqual([
      'ToolsModule',
      'ToolsModule',
      'ToolsModule',
    ]);
  });

  it('logs nothing per call by default', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const { tools } = await boot();
    await tools.invoke('catalog_list', {}, { transport: 'AGENT' });
    expect(callLines(log)).toEqual([]);
  });
});
