/**
 * Soak: 60 s (SOAK_SECONDS) of mixed MCP traffic at 64 keep-alive connections (SOAK_CONNECTIONS)
 * against a fixture app started as a child process (Express; SOAK_ADAPTER=fastify for Fastify).
 *
 * The mix: successes on both protocol eras (answered directly), tools/list, validation failures,
 * thrown errors (unexpected and ToolError), timeouts, progress calls (through the SDK, streamed),
 * unknown tools and malformed JSON. Each request kind has one expected outcome; anything else is
 * an unexpected error. It reports requests served, outcomes by code (tool-level codes from the
 * envelopes, JSON-RPC and HTTP-level ones), p50/p99 latency, and the server's resident memory
 * (VmRSS) and open file descriptors (/proc/<pid>/fd) at 10 s and at the end, then PASS/FAIL
 * against the targets: zero unexpected errors, memory growth after warm-up under 30 MB, no file
 * descriptor growth. Sockets follow the clients' connections, which may close and reopen, so
 * descriptor growth is judged on the non-socket ones between 10 s and the end, and on all of
 * them before the first connection and after the last.
 *
 * Run with `npm run bench:soak`. The load loop is plain node:http (keep-alive agent) rather than
 * autocannon because every answer is parsed and checked.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SECONDS = positiveInt(process.env.SOAK_SECONDS, 60);
const CONNECTIONS = positiveInt(process.env.SOAK_CONNECTIONS, 64);
const ADAPTER = process.env.SOAK_ADAPTER === 'fastify' ? 'fastify' : 'express';
const WARMUP_SECONDS = Math.min(10, SECONDS);
const MEMORY_BUDGET_MB = 30;
const REQUEST_TIMEOUT_MS = 10_000;

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

// ---------------------------------------------------------------------------------------------
// The server (child process).

async function serve(): Promise<void> {
  const { Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { z } = await import('zod');
  const { ToolError, ToolsModule, createRuntimeToolFactory } = await import('../lib/index.js');

  const soak = createRuntimeToolFactory({
    serviceName: 'soak',
    context: z.object({ tenantId: z.string() }),
  });
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  const tools = [
    soak.define({
      action: 'echo',
      method: 'GET',
      description: 'Echo the text with the tenant',
      input: z.object({ text: z.string().min(1) }),
      output: z.object({ text: z.string(), tenantId: z.string() }),
      handler: ({ input, context }) => ({ text: input.text, tenantId: context.tenantId }),
    }),
    soak.define({
      action: 'boom',
      method: 'POST',
      description: 'Fail unexpectedly',
      input: z.object({}),
      handler: () => {
        throw new Error('unexpected failure with a secret');
      },
    }),
    soak.define({
      action: 'conflict',
      method: 'POST',
      description: 'Refuse with a ToolError',
      input: z.object({ seat: z.string() }),
      handler: ({ input }) => {
        throw new ToolError('CONFLICT', { message: `Seat ${input.seat} is taken` });
      },
    }),
    soak.define({
      action: 'slow',
      method: 'GET',
      description: 'Take longer than its timeout',
      input: z.object({}),
      timeoutMs: 20,
      handler: async ({ signal }) => {
        await sleep(60, signal);
        return { late: true };
      },
    }),
    soak.define({
      action: 'progress',
      method: 'POST',
      description: 'Report progress while working',
      input: z.object({ steps: z.number().int().min(1).max(5) }),
      handler: async ({ input, reportProgress, signal }) => {
        for (let step = 1; step <= input.steps; step++) {
          reportProgress({ progress: step, total: input.steps });
          await sleep(1, signal);
        }
        return { steps: input.steps };
      },
    }),
  ];

  @Module({
    imports: [
      ToolsModule.forRoot({
        registry: tools,
        context: (req: { headers: Record<string, string | undefined> }) => ({
          tenantId: req.headers['x-tenant-id'],
        }),
      }),
    ],
  })
  class SoakModule {}

  const app =
    ADAPTER === 'fastify'
      ? await NestFactory.create(
          SoakModule,
          new (await import('@nestjs/platform-fastify')).FastifyAdapter(),
          { logger: false },
        )
      : await NestFactory.create(SoakModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const port = new URL((await app.getUrl()).replace('[::1]', '127.0.0.1')).port;
  console.log(`READY ${port} ${process.pid}`);
}

// ---------------------------------------------------------------------------------------------
// The load.

type Era = 'legacy' | 'modern';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  text: string;
}

/** What a request kind expects: an HTTP status and an outcome code. */
interface Kind {
  name: string;
  weight: number;
  era: Era;
  /** The tool called, or a JSON-RPC method. */
  method: 'tools/call' | 'tools/list' | 'malformed';
  tool?: string;
  args?: (n: number) => unknown;
  meta?: Record<string, unknown>;
  status: number;
  /** `ok`, a tool error code, `jsonrpc:<code>`. */
  expect: string;
  /** Extra checks on a success. */
  check?: (messages: any[], n: number) => boolean;
}

const KINDS: Kind[] = [
  ...(['legacy', 'modern'] as const).flatMap((era): Kind[] => [
    {
      name: `echo (${era})`,
      weight: 20,
      era,
      method: 'tools/call',
      tool: 'soak_echo',
      args: (n) => ({ text: `t${n}` }),
      status: 200,
      expect: 'ok',
      check: (messages, n) =>
        messages.at(-1)?.result?.structuredContent?.text === `t${n}` &&
        messages.at(-1)?.result?.structuredContent?.tenantId === `tenant-${n % 97}`,
    },
    { name: `list (${era})`, weight: 5, era, method: 'tools/list', status: 200, expect: 'ok' },
    {
      name: `validation (${era})`,
      weight: 8,
      era,
      method: 'tools/call',
      tool: 'soak_echo',
      args: (n) => ({ text: n }),
      status: 200,
      expect: 'VALIDATION_ERROR',
    },
    {
      name: `thrown error (${era})`,
      weight: 4,
      era,
      method: 'tools/call',
      tool: 'soak_boom',
      args: () => ({}),
      status: 200,
      expect: 'INTERNAL_SERVER_ERROR',
    },
    {
      name: `tool error (${era})`,
      weight: 4,
      era,
      method: 'tools/call',
      tool: 'soak_conflict',
      args: (n) => ({ seat: `S${n}` }),
      status: 200,
      expect: 'CONFLICT',
    },
    {
      name: `timeout (${era})`,
      weight: 4,
      era,
      method: 'tools/call',
      tool: 'soak_slow',
      args: () => ({}),
      status: 200,
      expect: 'REQUEST_TIMEOUT',
    },
    {
      name: `progress (${era})`,
      weight: 8,
      era,
      method: 'tools/call',
      tool: 'soak_progress',
      args: () => ({ steps: 3 }),
      meta: { progressToken: 'p' },
      status: 200,
      expect: 'ok',
      check: (messages) =>
        messages.filter((m) => m.method === 'notifications/progress').length === 3 &&
        messages.at(-1)?.result?.content?.[0]?.text === '{"steps":3}',
    },
    {
      name: `unknown tool (${era})`,
      weight: 1,
      era,
      method: 'tools/call',
      tool: 'soak_nope',
      args: () => ({}),
      status: 200,
      expect: 'jsonrpc:-32602',
    },
  ]),
  {
    name: 'malformed JSON',
    weight: 2,
    era: 'legacy',
    method: 'malformed',
    status: 400,
    expect: 'jsonrpc:-32700',
  },
];

const TOTAL_WEIGHT = KINDS.reduce((sum, kind) => sum + kind.weight, 0);

function pickKind(): Kind {
  let roll = Math.random() * TOTAL_WEIGHT;
  for (const kind of KINDS) {
    roll -= kind.weight;
    if (roll < 0) return kind;
  }
  return KINDS[0];
}

function bodyOf(kind: Kind, n: number): string {
  if (kind.method === 'malformed') return '{"jsonrpc":"2.0","id":1,"method":';
  const meta = { ...(kind.era === 'modern' ? MODERN_META : {}), ...kind.meta };
  const params =
    kind.method === 'tools/list' ? {} : { name: kind.tool, arguments: kind.args?.(n) ?? {} };
  return JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    method: kind.method,
    params: { ...params, ...(Object.keys(meta).length > 0 && { _meta: meta }) },
  });
}

function headersOf(kind: Kind, n: number, body: string): Record<string, string | number> {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': Buffer.byteLength(body),
    'x-tenant-id': `tenant-${n % 97}`,
  };
  if (kind.era === 'legacy') headers['mcp-protocol-version'] = '2025-06-18';
  else {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = kind.method;
    if (kind.tool) headers['mcp-name'] = kind.tool;
  }
  return headers;
}

function messagesOf(text: string): any[] | undefined {
  try {
    if (text.startsWith('event:') || text.startsWith('data:')) {
      return text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)));
    }
    return [JSON.parse(text)];
  } catch {
    return undefined;
  }
}

/** The outcome code of an answer: `ok`, a tool error code, `jsonrpc:<code>`, or `http:<status>`. */
function outcomeOf(answer: Answer): string {
  const messages = messagesOf(answer.text);
  const last = messages?.at(-1);
  if (!last) return `http:${answer.status}${answer.text === '' ? ' (empty)' : ' (unparseable)'}`;
  if (last.error) return `jsonrpc:${last.error.code}`;
  const result = last.result;
  if (result?.isError) {
    try {
      return JSON.parse(result.content[0].text).error ?? 'isError (no code)';
    } catch {
      return 'isError (unparseable)';
    }
  }
  return result ? 'ok' : 'no result';
}

function send(port: number, agent: Agent, kind: Kind, n: number): Promise<Answer> {
  const body = bodyOf(kind, n);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: headersOf(kind, n, body),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)),
      REQUEST_TIMEOUT_MS,
    );
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// The server's resources, from /proc.

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  return kb / 1024;
}

/** The server's descriptors: all, sockets (the clients' connections among them), and the rest. */
function fdsOf(pid: number): { all: number; sockets: number; other: number } {
  let sockets = 0;
  let all = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
      all++;
    } catch {
      // Closed while listing.
    }
  }
  return { all, sockets, other: all - sockets };
}

const describeFds = (fds: { all: number; sockets: number; other: number }) =>
  `${fds.all} (${fds.sockets} sockets, ${fds.other} other)`;

function startServer(): Promise<{ child: ChildProcess; port: number; pid: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' },
    },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /^READY (\d+) (\d+)$/.exec(line);
      if (match) resolve({ child, port: Number(match[1]), pid: Number(match[2]) });
      else console.log(`[server] ${line}`);
    });
    child.once('exit', (code) =>
      reject(new Error(`the server exited (${code}) before it was ready`)),
    );
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function soak(): Promise<void> {
  const { child, port, pid } = await startServer();
  // Whatever happens here, the server does not outlive the soak.
  process.once('exit', () => child.kill('SIGKILL'));
  console.log(
    `soak: ${SECONDS} s of mixed MCP traffic, ${CONNECTIONS} keep-alive connections, ` +
      `${ADAPTER} fixture app in child process ${pid} on port ${port}`,
  );
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const outcomes = new Map<string, number>();
  const unexpected = new Map<string, number>();
  const byKind = new Map<string, number>();
  let latencies = new Float64Array(1 << 16);
  let served = 0;
  let n = 0;
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  // Before any connection: what the idle server holds.
  const idleFds = fdsOf(pid);
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  let warm: { rss: number; fds: ReturnType<typeof fdsOf> } | undefined;
  const timeline: string[] = [];
  const sample = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000;
    const line =
      `  ${elapsed.toFixed(0).padStart(3)} s  ${String(served).padStart(8)} requests  ` +
      `RSS ${rssMb(pid).toFixed(1)} MB  fds ${describeFds(fdsOf(pid))}`;
    timeline.push(line);
    console.log(line);
  }, 10_000);
  const warmTimer = setTimeout(() => {
    warm = { rss: rssMb(pid), fds: fdsOf(pid) };
  }, WARMUP_SECONDS * 1000);

  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const kind = pickKind();
        const id = ++n;
        const t0 = performance.now();
        let outcome: string;
        let ok: boolean;
        try {
          const answer = await send(port, agent, kind, id);
          outcome = outcomeOf(answer);
          ok =
            answer.status === kind.status &&
            outcome === kind.expect &&
            (!kind.check || kind.check(messagesOf(answer.text) ?? [], id));
          if (answer.status !== 200) outcome = `http:${answer.status} ${outcome}`;
        } catch (error) {
          outcome = `transport:${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
          ok = false;
        }
        const ms = performance.now() - t0;
        if (served === latencies.length) {
          const bigger = new Float64Array(latencies.length * 2);
          bigger.set(latencies);
          latencies = bigger;
        }
        latencies[served++] = ms;
        count(outcomes, outcome);
        count(byKind, kind.name);
        if (!ok) count(unexpected, `${kind.name}: ${outcome}`);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sample);
  clearTimeout(warmTimer);
  const end = { rss: rssMb(pid), fds: fdsOf(pid) };
  warm ??= end;

  // Once the clients hang up, the server must be back to what it held before any connection.
  agent.destroy();
  let closedFds = fdsOf(pid);
  for (let waited = 0; closedFds.all > idleFds.all && waited < 3000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    closedFds = fdsOf(pid);
  }
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));

  const sorted = latencies.slice(0, served).sort();
  const unexpectedTotal = [...unexpected.values()].reduce((a, b) => a + b, 0);
  const growth = end.rss - warm.rss;
  // Sockets come and go with the clients' connections; any other descriptor must not grow.
  const fdGrowth = end.fds.other - warm.fds.other;
  const fdLeft = closedFds.all - idleFds.all;

  console.log(
    `\nrequests served   ${served} in ${elapsed.toFixed(1)} s (${(served / elapsed).toFixed(0)} req/s)`,
  );
  console.log(
    'outcomes by code (tool-level codes from the envelopes; jsonrpc:/http: below the tool)',
  );
  for (const [code, total] of [...outcomes].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${code.padEnd(28)} ${total}`);
  }
  console.log('requests by kind');
  for (const kind of KINDS)
    console.log(
      `  ${kind.name.padEnd(28)} ${byKind.get(kind.name) ?? 0}  → expects ${kind.status} ${kind.expect}`,
    );
  console.log(
    `latency           p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   max ${sorted.at(-1)?.toFixed(2)} ms`,
  );
  console.log(
    `server RSS        ${warm.rss.toFixed(1)} MB at ${WARMUP_SECONDS} s → ${end.rss.toFixed(1)} MB at the end (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB)`,
  );
  console.log(
    `server open fds   ${describeFds(warm.fds)} at ${WARMUP_SECONDS} s → ${describeFds(end.fds)} at the end`,
  );
  console.log(
    `                  ${describeFds(idleFds)} before the first connection → ${describeFds(closedFds)} once the clients hung up`,
  );
  if (unexpectedTotal > 0) {
    console.log('unexpected outcomes');
    for (const [what, total] of unexpected) console.log(`  ${what}  ×${total}`);
  }
  const verdicts = [
    [`zero unexpected errors (${unexpectedTotal})`, unexpectedTotal === 0],
    [
      `memory growth after warm-up < ${MEMORY_BUDGET_MB} MB (${growth.toFixed(1)} MB)`,
      growth < MEMORY_BUDGET_MB,
    ],
    [
      `no file descriptor growth (non-socket ${fdGrowth >= 0 ? '+' : ''}${fdGrowth} after warm-up, ` +
        `${fdLeft >= 0 ? '+' : ''}${fdLeft} left once the clients hung up)`,
      fdGrowth <= 0 && fdLeft <= 0,
    ],
  ] as const;
  console.log('');
  for (const [target, pass] of verdicts) console.log(`${pass ? 'PASS' : 'FAIL'}  ${target}`);
  process.exitCode = verdicts.every(([, pass]) => pass) ? 0 : 1;
}

if (process.argv.includes('--serve')) await serve();
else await soak();
