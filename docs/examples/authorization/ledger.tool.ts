import { defineRuntimeTool } from 'toolwright';
import { z } from 'zod';

/** A runtime tool declares its scopes the same way: the caller must hold both. */
export const exportLedger = defineRuntimeTool({
  description: 'Export the ledger of one month as CSV.',
  identity: { serviceName: 'billing', action: 'exportLedger', method: 'GET' },
  input: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/) }),
  output: z.object({ url: z.string() }),
  scopes: ['billing:read', 'billing:export'],
  handler: ({ input }) => ({ url: `https://files.example.com/ledger-${input.month}.csv` }),
});
