import { describe, expect, it } from '@jest/globals';
import { createToolInvoker, type ToolPrincipal } from 'toolwright';
import { exportLedger } from './ledger.tool.js';

// A unit test needs no token and no authorization server: the principal goes in the context.
describe('exportLedger', () => {
  const invoker = createToolInvoker([exportLedger]);
  const as = (...scopes: string[]) => ({
    transport: 'AGENT' as const,
    context: { principal: { clientId: 'test', scopes } satisfies ToolPrincipal },
  });

  it('runs for a caller holding its scopes', async () => {
    const result = await invoker.invoke(
      'billing_export_ledger',
      { month: '2026-03' },
      as('billing:read', 'billing:export'),
    );
    expect(result).toEqual({
      ok: true,
      data: { url: 'https://files.example.com/ledger-2026-03.csv' },
    });
  });

  it('refuses a caller lacking one, and hides the tool from its listing', async () => {
    const result = await invoker.invoke(
      'billing_export_ledger',
      { month: '2026-03' },
      as('billing:read'),
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN', details: { requiredScopes: ['billing:read', 'billing:export'] } },
    });
    expect(await invoker.visible('AGENT', as('billing:read'))).toEqual([]);
  });
});
