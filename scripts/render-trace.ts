/**
 * Draws docs/images/mcp-call-trace.svg (`npm run docs:trace`): the spans of one real MCP
 * `tools/call`, as an OpenTelemetry SDK records them, as a waterfall.
 *
 * A toolwright invoker behind `createMcpHttpHandler` on node:http, an in-memory exporter with the
 * AsyncLocalStorage context manager and the W3C propagator, and the official MCP client (2026-07-28
 * era), which sends its span's context in `params._meta.traceparent`. The tool reports progress,
 * logs a line and calls two other tools. Ids come from a seeded generator; durations are this
 * run's, so they change a little from one run to the next.
 */
import {
  Client,
  LOG_LEVEL_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type IdGenerator,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createToolInvoker, defineRuntimeTool } from 'toolwright/core';
import { createMcpHttpHandler } from 'toolwright/mcp';
import { z } from 'zod';

const OUTPUT = join(dirname(fileURLToPath(import.meta.url)), '../docs/images/mcp-call-trace.svg');

// ---------------------------------------------------------------------------------------------
// The SDK: what an application's tracing setup registers.

/** Hex ids from a seeded generator, so that the picture keeps its ids from run to run. */
class SeededIds implements IdGenerator {
  private state = 0x5eed;

  private hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i++) {
      // mulberry32
      let t = (this.state += 0x6d2b79f5);
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      out += (((t ^ (t >>> 14)) >>> 0) & 0xff).toString(16).padStart(2, '0');
    }
    return out;
  }

  generateTraceId = () => this.hex(16);
  generateSpanId = () => this.hex(8);
}

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({
  idGenerator: new SeededIds(),
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);

// ---------------------------------------------------------------------------------------------
// The application: a triage tool that calls two others.

const Ticket = z.object({ id: z.string(), title: z.string(), priority: z.string() });
const TENANT = z.object({ tenantId: z.string() });

const getTicket = defineRuntimeTool({
  description: 'Read one ticket.',
  identity: { serviceName: 'helpdesk', action: 'getTicket', method: 'GET' },
  input: z.object({ id: z.string() }),
  output: Ticket,
  context: TENANT,
  handler: async ({ input }) => {
    await sleep(6); // the database
    return { id: input.id, title: 'Cannot reset password', priority: 'normal' };
  },
});

const searchArticles = defineRuntimeTool({
  description: 'Find the knowledge base articles related to a text.',
  identity: { serviceName: 'helpdesk', action: 'searchArticles', method: 'GET' },
  input: z.object({ query: z.string() }),
  output: z.object({ articles: z.array(z.object({ id: z.string(), title: z.string() })) }),
  context: TENANT,
  handler: async () => {
    await sleep(12); // the search index
    return { articles: [{ id: 'KB-1', title: 'Resetting a password' }] };
  },
});

const triageTicket = defineRuntimeTool({
  description: 'Read a ticket, find the articles that answer it, and suggest them.',
  identity: { serviceName: 'helpdesk', action: 'triageTicket', method: 'POST' },
  input: z.object({ id: z.string() }),
  output: z.object({ ticket: Ticket, suggestions: z.array(z.string()) }),
  context: TENANT,
  handler: async ({ input, context, reportProgress, log }) => {
    const nested = { transport: 'AGENT', context } as const;
    reportProgress({ progress: 1, total: 3, message: 'Reading the ticket' });
    const ticket = await invoker.invokeOrThrow<z.infer<typeof Ticket>>(
      'helpdesk_get_ticket',
      { id: input.id },
      nested,
    );
    reportProgress({ progress: 2, total: 3, message: 'Searching the knowledge base' });
    const { articles } = await invoker.invokeOrThrow<{ articles: { id: string }[] }>(
      'helpdesk_search_articles',
      { query: ticket.title },
      nested,
    );
    log.info(`Suggesting ${articles.length} article(s)`);
    await sleep(2);
    reportProgress({ progress: 3, total: 3, message: 'Done' });
    return { ticket, suggestions: articles.map((article) => article.id) };
  },
});

// The triage handler reaches the invoker when it runs, after this line.
const invoker = createToolInvoker([getTicket, searchArticles, triageTicket], {
  // One context attribute on every execute_tool span (never on metrics).
  telemetry: { attributes: (ctx) => ({ 'app.tenant.id': ctx.tenantId as string }) },
});
const mcp = createMcpHttpHandler(invoker, {
  serverInfo: { name: 'helpdesk', version: '1.0.0' },
  context: (request) => ({ tenantId: String(request.headers['x-tenant-id'] ?? 'anonymous') }),
});
const server = createServer((request, response) => void mcp(request, response));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

// ---------------------------------------------------------------------------------------------
// The client: one tools/call in a span of its own, whose context goes in params._meta.

const client = new Client(
  { name: 'helpdesk-agent', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await client.connect(
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { 'x-tenant-id': 'acme' } },
  }),
);
const tool = 'helpdesk_triage_ticket';
const clientTracer = trace.getTracer('helpdesk-agent');
const traceId = await clientTracer.startActiveSpan(
  `tools/call ${tool}`,
  {
    kind: SpanKind.CLIENT,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
    },
  },
  async (span) => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier); // { traceparent: '00-…-…-01' }
    const progress: string[] = [];
    const result = await client.callTool(
      {
        name: tool,
        arguments: { id: 'T-1001' },
        _meta: { ...carrier, [LOG_LEVEL_META_KEY]: 'info' },
      },
      { onprogress: ({ message }) => void progress.push(String(message)) },
    );
    span.end();
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    console.log(
      `${tool}: ${JSON.stringify(result.structuredContent)}; progress: ${progress.join(' / ')}`,
    );
    return span.spanContext().traceId;
  },
);
await client.close();
await mcp.close();
await invoker.close();
await new Promise((resolve) => server.close(resolve));
await provider.forceFlush();

const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
await provider.shutdown();

// ---------------------------------------------------------------------------------------------
// The waterfall.

interface Row {
  span: ReadableSpan;
  depth: number;
}

/** Parents before children, siblings by start time. */
function rowsOf(all: ReadableSpan[]): Row[] {
  const ids = new Set(all.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of all) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const rows: Row[] = [];
  const visit = (parent: string | undefined, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => ms(a.startTime) - ms(b.startTime));
    for (const span of list) {
      rows.push({ span, depth });
      visit(span.spanContext().spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  return rows;
}

const ms = ([seconds, nanos]: readonly [number, number]) => seconds * 1e3 + nanos / 1e6;

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const KIND = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

/** The attributes a row shows under its name, in this order, when the span has them. */
const SHOWN = [
  'mcp.method.name',
  'jsonrpc.request.id',
  'mcp.protocol.version',
  'network.transport',
  'toolwright.transport',
  'toolwright.source',
  'toolwright.call.depth',
  'app.tenant.id',
  'error.type',
];

function colourOf({ span }: Row): string {
  if (span.instrumentationScope.name !== 'toolwright') return '#94a3b8';
  if (span.kind === SpanKind.SERVER) return '#0f766e';
  return span.attributes['toolwright.call.depth'] === 0 ? '#4338ca' : '#818cf8';
}

/** Items joined by two spaces, in at most `max` lines of `width` characters (the last one cut with …). */
function wrap(items: string[], width: number, max: number): string[] {
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 2 + item.length <= width) lines[last] += `  ${item}`;
    else lines.push(item);
  }
  if (lines.length > max) lines.splice(max - 1, lines.length, lines.slice(max - 1).join('  '));
  return lines.map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
}

function niceStep(total: number): number {
  for (const step of [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000]) {
    if (total / step <= 8) return step;
  }
  return Math.ceil(total / 8);
}

function render(rows: Row[]): string {
  const width = 1000;
  const pad = 24;
  const labels = 470;
  const x0 = pad + labels + 16;
  const x1 = width - pad - 56;
  const top = 108;
  const rowHeight = 66;
  const t0 = Math.min(...rows.map((row) => ms(row.span.startTime)));
  const t1 = Math.max(...rows.map((row) => ms(row.span.endTime)));
  const total = t1 - t0 || 1;
  const x = (t: number) => x0 + ((t - t0) / total) * (x1 - x0);
  const height = top + rows.length * rowHeight + 64;
  const mono = `font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"`;
  const sans = `font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="title desc">`,
    `<title id="title">Trace of one MCP tools/call of ${tool}</title>`,
    `<desc id="desc">${escape(
      rows
        .map(
          ({ span, depth }) =>
            `${'  '.repeat(depth)}${span.name} (${KIND[span.kind]}, ${(ms(span.endTime) - ms(span.startTime)).toFixed(1)} ms)`,
        )
        .join('; '),
    )}</desc>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="8" fill="#ffffff" stroke="#e2e8f0"/>`,
    `<text x="${pad}" y="36" ${sans} font-size="17" font-weight="600" fill="#0f172a">One MCP tools/call, as the OpenTelemetry SDK recorded it</text>`,
    `<text x="${pad}" y="58" ${mono} font-size="12" fill="#475569">trace ${traceId} · ${rows.length} spans · ${total.toFixed(1)} ms · npm run docs:trace</text>`,
  ];
  // The time axis.
  const step = niceStep(total);
  for (let t = 0; t <= total + 1e-9; t += step) {
    const at = x(t0 + t).toFixed(1);
    out.push(
      `<line x1="${at}" y1="${top - 14}" x2="${at}" y2="${top + rows.length * rowHeight}" stroke="#e2e8f0"/>`,
      `<text x="${at}" y="${top - 20}" ${mono} font-size="11" fill="#64748b" text-anchor="middle">${t} ms</text>`,
    );
  }
  const rowOf = new Map(rows.map((row, index) => [row.span.spanContext().spanId, index]));
  rows.forEach((row, index) => {
    const { span, depth } = row;
    const y = top + index * rowHeight;
    if (index % 2 === 1) {
      out.push(
        `<rect x="1" y="${y}" width="${width - 2}" height="${rowHeight}" fill="#f8fafc" fill-opacity="0.8"/>`,
      );
    }
    const indent = pad + depth * 20;
    const duration = ms(span.endTime) - ms(span.startTime);
    // A guide from under the parent's text, left of its siblings' text, to this row's name.
    const parent = rowOf.get(span.parentSpanContext?.spanId ?? '');
    if (parent !== undefined) {
      const gx = indent - 12;
      const from = top + parent * rowHeight + rowHeight - 8;
      out.push(
        `<path d="M ${gx} ${from} V ${y + 17} H ${indent - 4}" fill="none" stroke="#cbd5e1"/>`,
      );
    }
    const shown = SHOWN.filter((key) => span.attributes[key] !== undefined).map(
      (key) => `${key}=${String(span.attributes[key])}`,
    );
    const lines = wrap(shown, Math.floor((labels - (indent - pad)) / 6.7), 2);
    const scope =
      span.instrumentationScope.name === 'toolwright' ? '' : ` · ${span.instrumentationScope.name}`;
    out.push(
      `<text x="${indent}" y="${y + 21}" ${mono} font-size="13" fill="#0f172a"><tspan font-weight="600">${escape(span.name)}</tspan><tspan dx="8" fill="#64748b" font-size="11">${KIND[span.kind]}${escape(scope)}</tspan></text>`,
      ...lines.map(
        (line, i) =>
          `<text x="${indent}" y="${y + 39 + i * 15}" ${mono} font-size="11" fill="#64748b" xml:space="preserve">${escape(line)}</text>`,
      ),
    );
    const bx = x(ms(span.startTime));
    const bw = Math.max(2, x(ms(span.endTime)) - bx);
    const colour = colourOf(row);
    const error = span.status.code === SpanStatusCode.ERROR;
    out.push(
      `<rect x="${bx.toFixed(1)}" y="${y + 13}" width="${bw.toFixed(1)}" height="18" rx="3" fill="${colour}"${error ? ' stroke="#dc2626" stroke-width="2"' : ''}/>`,
      `<text x="${(bx + bw + 6).toFixed(1)}" y="${y + 26}" ${mono} font-size="11" fill="#334155">${duration.toFixed(1)} ms</text>`,
    );
    for (const event of span.events) {
      const ex = x(ms(event.time)).toFixed(1);
      const cy = y + 22;
      if (event.name === 'toolwright.log') {
        out.push(
          `<path d="M ${ex} ${cy - 6} L ${Number(ex) + 5} ${cy} L ${ex} ${cy + 6} L ${Number(ex) - 5} ${cy} Z" fill="#f59e0b" stroke="#ffffff" stroke-width="1.2"><title>${escape(`${event.name}: ${String(event.attributes?.['toolwright.log.message'] ?? '')}`)}</title></path>`,
        );
      } else {
        const label = `${event.name}: ${String(event.attributes?.['toolwright.progress.value'] ?? '')}/${String(event.attributes?.['toolwright.progress.total'] ?? '')} ${String(event.attributes?.['toolwright.progress.message'] ?? '')}`;
        out.push(
          `<circle cx="${ex}" cy="${cy}" r="4" fill="#ffffff" stroke="#1e1b4b" stroke-width="1.5"><title>${escape(label)}</title></circle>`,
        );
      }
    }
  });
  // The legend.
  const ly = top + rows.length * rowHeight + 34;
  const legend: [string, string][] = [
    ['#94a3b8', 'the client’s span'],
    ['#0f766e', 'MCP request (SERVER)'],
    ['#4338ca', 'execute_tool'],
    ['#818cf8', 'nested execute_tool'],
  ];
  let lx = pad;
  for (const [colour, text] of legend) {
    out.push(
      `<rect x="${lx}" y="${ly - 10}" width="14" height="12" rx="2" fill="${colour}"/>`,
      `<text x="${lx + 20}" y="${ly}" ${sans} font-size="12" fill="#334155">${escape(text)}</text>`,
    );
    lx += 28 + text.length * 6.8;
  }
  out.push(
    `<circle cx="${lx + 6}" cy="${ly - 4}" r="4" fill="#ffffff" stroke="#1e1b4b" stroke-width="1.5"/>`,
    `<text x="${lx + 16}" y="${ly}" ${sans} font-size="12" fill="#334155">toolwright.progress</text>`,
  );
  lx += 150;
  out.push(
    `<path d="M ${lx + 6} ${ly - 10} L ${lx + 11} ${ly - 4} L ${lx + 6} ${ly + 2} L ${lx + 1} ${ly - 4} Z" fill="#f59e0b"/>`,
    `<text x="${lx + 18}" y="${ly}" ${sans} font-size="12" fill="#334155">toolwright.log</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}

const rows = rowsOf(spans);
// The client's span, the MCP server span, and the three calls' spans: anything else is news.
if (rows.length !== 5 || rows.some((row, index) => row.depth !== [0, 1, 2, 3, 3][index])) {
  throw new Error(
    `Unexpected trace: ${rows.map((row) => `${row.depth} ${row.span.name}`).join('; ')}`,
  );
}
for (const { span, depth } of rows) {
  const duration = (ms(span.endTime) - ms(span.startTime)).toFixed(1);
  const links = span.links.length > 0 ? ` (${span.links.length} link)` : '';
  console.log(`${'  '.repeat(depth)}${span.name} [${KIND[span.kind]}] ${duration} ms${links}`);
}
mkdirSync(dirname(OUTPUT), { recursive: true });
writeFileSync(OUTPUT, render(rows));
console.log(`Wrote ${OUTPUT}`);
