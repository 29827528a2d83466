import { setTimeout as sleep } from 'node:timers/promises';
import { defineRuntimeTool } from 'toolwright';
import { z } from 'zod';

/** The smallest tool: named `health_ping`, read-only (GET), on MCP and AGENT. */
export const ping = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  output: z.object({ pong: z.boolean() }),
  handler: () => ({ pong: true }),
});

/**
 * A long-running tool: it reports progress, logs, honours cancellation and has a timeout.
 * Exposed on the command line too (CLI is opt-in).
 */
export const exportReport = defineRuntimeTool({
  name: 'reports_export',
  description: 'Export the monthly report, page by page.',
  identity: { serviceName: 'reports', action: 'exportMonthly', method: 'POST' },
  input: z.object({ pages: z.number().int().min(1).max(20).default(3) }),
  output: z.object({ pages: z.number(), url: z.string() }),
  transports: ['MCP', 'AGENT', 'CLI'],
  annotations: { title: 'Export report', openWorldHint: false },
  timeoutMs: 30_000,
  handler: async ({ input, signal, reportProgress, log, call }) => {
    for (let page = 1; page <= input.pages; page++) {
      // Rejects as soon as the caller cancels or the timeout passes.
      await sleep(50, undefined, { signal });
      reportProgress({ progress: page, total: input.pages, message: `page ${page}` });
    }
    log.info('export finished', { callId: call.id });
    return { pages: input.pages, url: `https://files.example.com/reports/${call.id}.pdf` };
  },
});

/** A tool whose MCP answer is readable text; `structuredContent` still carries the output. */
export const weather = defineRuntimeTool({
  description: 'Current weather for a city',
  identity: { serviceName: 'weather', action: 'current', method: 'GET' },
  input: z.object({ city: z.string().min(1) }),
  output: z.object({ city: z.string(), celsius: z.number() }),
  present: {
    mcp: (output) => ({
      content: [{ type: 'text', text: `${output.city}: ${output.celsius} °C` }],
    }),
  },
  handler: ({ input }) => ({ city: input.city, celsius: 21 }),
});
