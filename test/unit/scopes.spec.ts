/**
 * Tool scopes: declared on runtime tools and tool classes, shown in the manifest, checked by the
 * runner against the caller's principal (`context.principal`) on every transport before the
 * application's guards (the command line's included), and used to filter listings.
 */
import 'reflect-metadata';
import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  ToolsConfigurationError,
  type ToolGuard,
  type ToolPrincipal,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { Tool, ToolFactory } from '../../lib/index.js';
import { classTools } from '../../lib/core/tool-class.js';
import { runCliCommand, type CliCommand } from '../../lib/cli/cli-commands.js';
import { catalogInvoker } from '../../lib/core/catalog-invoker.js';

const handler = jest.fn(() => ({ done: true }));
const voidInvoice = defineRuntimeTool({
  description: 'Void an invoice',
  identity: { serviceName: 'billing', action: 'void_invoice', method: 'DELETE' },
  input: z.object({}),
  scopes: ['billing:write', 'billing:read', 'billing:write'],
  handler,
});
const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  transports: ['MCP', 'AGENT', 'CLI'],
  handler: () => ({ pong: true }),
});

const exportLedger = defineRuntimeTool({
  description: 'Export the ledger',
  identity: { serviceName: 'billing', action: 'export_ledger', method: 'GET' },
  input: z.object({}),
  transports: ['CLI'],
  scopes: ['billing:export'],
  handler: () => ({ exported: true }),
});

const principal = (...scopes: string[]): { principal: ToolPrincipal } => ({
  principal: { clientId: 'c1', subject: 'alice', scopes },
});

const FORBIDDEN = {
  ok: false,
  error: {
    code: 'FORBIDDEN',
    message: 'The call to "billing_void_invoice" needs the scopes billing:write billing:read.',
    retryable: false,
    hint: 'Sign in again asking for these scopes.',
    details: { requiredScopes: ['billing:write', 'billing:read'] },
  },
};

describe('tool scopes', () => {
  it('are declared once each and appear in the manifest; a tool without any has none', () => {
    const invoker = createToolInvoker([voidInvoice, ping]);
    const [voiding, pinging] = invoker.manifest('MCP');
    expect(voiding.scopes).toEqual(['billing:write', 'billing:read']);
    expect('scopes' in pinging).toBe(false);
  });

  it('join the class scopes and the method scopes on a tool class', () => {
    @ToolFactory({ serviceName: 'billing', scopes: ['billing:read'] })
    class InvoiceTools {
      @Tool({ action: 'get', method: 'GET', description: 'Get', input: z.object({}) })
      get() {}

      @Tool({
        action: 'void',
        method: 'DELETE',
        description: 'Void',
        input: z.object({}),
        scopes: ['billing:write'],
      })
      void() {}
    }
    expect(classTools(InvoiceTools).map((tool) => [tool.name, tool.scopes])).toEqual([
      ['billing_get', ['billing:read']],
      ['billing_void', ['billing:read', 'billing:write']],
    ]);
  });

  it('refuses a scope that is not an OAuth scope token', () => {
    const declaration = {
      description: 'Void an invoice',
      identity: { serviceName: 'billing', action: 'void_invoice', method: 'DELETE' },
      input: z.object({}),
      handler,
    } as const;
    expect(() => defineRuntimeTool({ ...declaration, scopes: ['billing write'] })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.scope(
          'billing_void_invoice',
          'runtime tool billing.void_invoice',
          'billing write',
        ),
      ),
    );
  });

  it.each(['MCP', 'AGENT'] as const)(
    'refuses a %s call whose principal lacks a scope, or that has none, with FORBIDDEN, before any guard or the handler',
    async (transport) => {
      const canActivate = jest.fn<ToolGuard['canActivate']>(() => true);
      const invoker = createToolInvoker([voidInvoice], { guards: [{ canActivate }] });
      handler.mockClear();
      for (const context of [{}, principal('billing:read'), { principal: 'alice' }]) {
        expect(await invoker.invoke('billing_void_invoice', {}, { transport, context })).toEqual(
          FORBIDDEN,
        );
      }
      expect(canActivate).not.toHaveBeenCalled();
      expect(handler).not.toHaveBeenCalled();
      expect(
        await invoker.invoke(
          'billing_void_invoice',
          {},
          {
            transport,
            context: principal('billing:read', 'billing:write', 'other'),
          },
        ),
      ).toEqual({ ok: true, data: { done: true } });
      expect(canActivate).toHaveBeenCalledTimes(1);
    },
  );

  it('refuses a CLI call whose principal lacks a scope with FORBIDDEN, and runs it with the scope', async () => {
    const canActivate = jest.fn<ToolGuard['canActivate']>(() => true);
    const invoker = createToolInvoker([exportLedger], { guards: [{ canActivate }] });
    const requiredScopes = ['billing:export'];
    const refusal = {
      code: 'FORBIDDEN',
      message: 'The call to "billing_export_ledger" needs the scopes billing:export.',
      retryable: false,
      hint: 'Sign in again asking for these scopes.',
      details: { requiredScopes },
    };
    const invoke = (context: Record<string, unknown>) =>
      invoker.invoke('billing_export_ledger', {}, { transport: 'CLI', context });
    expect(await invoke(principal('billing:read'))).toEqual({ ok: false, error: refusal });
    // The command line: runToolsCli's `context` (the io context here) carries the principal.
    // Every command is --json: stdout is one JSON document.
    const run = async (command: CliCommand, context?: Record<string, unknown>) => {
      const out = { stdout: '', stderr: '' };
      const code = await runCliCommand(invoker, command, {
        stdout: { write: (chunk: string | Uint8Array) => void (out.stdout += String(chunk)) },
        stderr: { write: (text: string) => void (out.stderr += text) },
        ...(context && { context }),
      });
      return { code, stdout: JSON.parse(out.stdout) as unknown, stderr: out.stderr };
    };
    const call = { command: 'call', name: 'billing_export_ledger', json: true, input: {} } as const;
    const { code: error, ...envelope } = refusal;
    for (const context of [undefined, principal('billing:read')]) {
      expect(await run(call, context)).toEqual({
        code: 1,
        stdout: { error, ...envelope },
        stderr: '',
      });
    }
    expect(await run({ command: 'list', json: true }, principal('billing:read'))).toEqual({
      code: 0,
      stdout: [],
      stderr: '',
    });
    expect(canActivate).not.toHaveBeenCalled();

    expect(await invoke(principal('billing:export'))).toEqual({
      ok: true,
      data: { exported: true },
    });
    expect(await run(call, principal('billing:export'))).toEqual({
      code: 0,
      stdout: { exported: true },
      stderr: '',
    });
    const listed = await run({ command: 'list', json: true }, principal('billing:export'));
    expect((listed.stdout as { name: string }[]).map((tool) => tool.name)).toEqual([
      'billing_export_ledger',
    ]);
    expect(canActivate).toHaveBeenCalledTimes(2);
  });

  it("reaches the application's guards and hooks in the context", async () => {
    const seen: unknown[] = [];
    const invoker = createToolInvoker([voidInvoice], {
      guards: [{ canActivate: ({ context }) => (seen.push(context), true) }],
      hooks: { beforeToolCall: ({ context }) => void seen.push(context) },
    });
    const context = principal('billing:read', 'billing:write');
    await invoker.invoke('billing_void_invoice', {}, { transport: 'AGENT', context });
    expect(seen).toEqual([context, context]);
  });

  it('never puts the principal in the failure', async () => {
    const invoker = createToolInvoker([voidInvoice]);
    const result = await invoker.invoke(
      'billing_void_invoice',
      {},
      {
        transport: 'AGENT',
        context: principal('billing:read'),
      },
    );
    expect(JSON.stringify(result)).not.toMatch(/alice|c1/);
  });

  it('filter what a caller sees listed by the scopes its principal holds', async () => {
    const invoker = createToolInvoker([voidInvoice, ping]);
    expect(catalogInvoker(invoker).catalog.filtersListing('MCP')).toBe(true);
    expect(catalogInvoker(invoker).catalog.filtersListing('CLI')).toBe(false);
    const names = async (context: Record<string, unknown>) =>
      (await invoker.visible('MCP', { context })).map((tool) => tool.name);
    expect(await names({})).toEqual(['health_ping']);
    expect(await names(principal('billing:write'))).toEqual(['health_ping']);
    expect(await names(principal('billing:write', 'billing:read'))).toEqual([
      'billing_void_invoice',
      'health_ping',
    ]);
  });
});
