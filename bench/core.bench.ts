/**
 * Throughput of `invoker.invoke` against a direct `output.parse(await handler(input.parse(args)))`
 * on a trivial tool, measured in one process, interleaved (baseline, floor, invoker, baseline, …)
 * after a warm-up, so that JIT state, GC pressure and CPU frequency affect every path alike.
 *
 * The floor is the least any runner with the pipeline's guarantees can do for this call, written
 * by hand for this one tool: an AsyncLocalStorage frame holding the call's info (id, name,
 * transport, source, depth), the baseline's parse → handler → parse, a result object and one
 * `afterToolCall` with the duration. It shows how much of the gap is the pipeline and how much
 * the guarantees themselves.
 *
 * Both paths share the process on purpose: once the invoker has run, an AsyncLocalStorage is
 * enabled for every promise (on Node 22 through promise hooks), the baseline's included, as it
 * would be in a server.
 *
 * Then the same tool mounted by `ToolsModule` in a Nest app (Express) listening on loopback in
 * this process: one in-process `ToolInvoker.invoke` against one MCP `tools/call` over HTTP, both
 * sequential (one call at a time, keep-alive connection), on each protocol era, interleaved the
 * same way. A loopback call includes the client's own HTTP work, done in this process too.
 *
 * With BENCH_OTEL=1, each comparison gets the same paths with an OpenTelemetry SDK registered
 * (`src/shared/otel.ts`: a BatchSpanProcessor over an in-memory exporter, metrics read every
 * second), interleaved with the rest in the same run: the SDK is registered right before each of
 * their slices and unregistered right after, so every other path runs as without an SDK. It
 * prints each one's throughput over the same path's without the SDK: what an `execute_tool`
 * span and a `toolwright.tool.call.duration` record cost an in-process call (plus, over
 * loopback, the request's SERVER span and `mcp.server.operation.duration` record), then checks
 * that the SDK exported a span and a record for every call it saw. Without BENCH_OTEL nothing
 * of the SDK is loaded, and the figures are the same as before.
 *
 * Run with `npm run bench:core` (about 20 s; 35 s with BENCH_OTEL=1). It prints figures only; it
 * asserts correctness, never timings. Tune with BENCH_SLICE_MS (default 300) and BENCH_ROUNDS
 * (default 8).
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import { ToolInvoker, ToolsModule, createToolInvoker, defineRuntimeTool } from '../lib/index.js';

const SLICE_MS = positiveInt(process.env.BENCH_SLICE_MS, 300);
const ROUNDS = positiveInt(process.env.BENCH_ROUNDS, 8);
/** The SDK of the BENCH_OTEL paths, registered only around their slices; none without BENCH_OTEL. */
const telemetry =
  process.env.BENCH_OTEL && process.env.BENCH_OTEL !== '0'
    ? (await import('./src/shared/otel.js')).registerTelemetry({ answerAtOnce: true })
    : undefined;
telemetry?.disable();
const WARMUP_ROUNDS = 3;
/** Calls between two clock reads, so that reading the clock costs next to nothing. */
const CHUNK = 64;
const GOAL = 0.5;

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const input = z.object({ text: z.string(), n: z.number() });
const output = z.object({ text: z.string() });
const echo = async (value: z.output<typeof input>) => ({ text: value.text });

const tool = defineRuntimeTool({
  description: 'Echo the text back',
  identity: { serviceName: 'bench', action: 'echo', method: 'GET' },
  input,
  output,
  handler: ({ input: value }) => echo(value),
});

let hookRuns = 0;
const invoker = createToolInvoker([tool], {
  hooks: {
    afterToolCall: () => {
      hookRuns++;
    },
  },
});

const ARGS = { text: 'hi', n: 1 };
const OPTIONS = { transport: 'AGENT' } as const;

/** Keeps every result observable, so no path can be optimised away. */
let sink = 0;

async function baselineCall(): Promise<void> {
  const result = output.parse(await echo(input.parse(ARGS)));
  sink += result.text.length;
}

const frames = new AsyncLocalStorage<{ readonly call: object }>();
let floorIds = 0;
let floorHookRuns = 0;
const floorAfter = (options: { readonly durationMs: number; readonly [key: string]: unknown }) => {
  if (options.durationMs >= 0) floorHookRuns++;
};

async function floorCall(): Promise<void> {
  const call = Object.freeze({
    id: `floor-${(++floorIds).toString(36)}`,
    name: 'bench_echo',
    transport: 'AGENT',
    source: 'internal',
    depth: 0,
  });
  // One promise for the wait on the handler, none of its own: the tightest form found.
  const result = await frames.run({ call }, () => {
    const started = performance.now();
    return echo(input.parse(ARGS)).then((value) => {
      const done = { ok: true, data: output.parse(value) };
      const durationMs = performance.now() - started;
      floorAfter({ name: call.name, args: ARGS, context: {}, call, result: done, durationMs });
      return done;
    });
  });
  sink += result.data.text.length;
}

async function invokerCall(): Promise<void> {
  const result = await invoker.invoke<{ text: string }>('bench_echo', ARGS, OPTIONS);
  if (result.ok) sink += result.data.text.length;
}

type Call = () => Promise<void>;

/** A measured path: its label, one call, and whether it runs with the OpenTelemetry SDK. */
type Path = readonly [label: string, call: Call, sdk?: boolean];

/** The same path with the SDK registered (BENCH_OTEL), under another label. */
const withSdk = (label: string, [, call]: Path): Path => [label, call, true];

/** Calls made with the SDK registered: every one must have its span and duration record. */
let sdkCalls = 0;
let sdkRequests = 0;

/** One slice of a path, with the SDK registered around it when the path asks for it. */
async function slicePath(
  [, call, sdk]: Path,
  ms: number,
  http = false,
): Promise<{ calls: number; rate: number }> {
  if (!sdk) return slice(call, ms);
  telemetry!.enable();
  try {
    const measured = await slice(call, ms);
    sdkCalls += measured.calls;
    if (http) sdkRequests += measured.calls;
    return measured;
  } finally {
    telemetry!.disable();
  }
}

/**
 * After the SDK paths: the SDK must have exported one `execute_tool` span and one duration
 * record per call made while it was registered (and, over loopback, a SERVER span and an MCP
 * duration record per request): one that saw nothing, or dropped spans, measured nothing.
 */
async function verifyTelemetry(what: string): Promise<void> {
  if (!telemetry) return;
  await telemetry.flush();
  const counts = telemetry.counts();
  const expected: Array<[number, number, string]> = [
    [counts.toolSpans, sdkCalls, 'execute_tool spans'],
    [counts.toolDurations, sdkCalls, 'toolwright.tool.call.duration records'],
    [counts.serverSpans, sdkRequests, 'SERVER spans'],
    [counts.mcpDurations, sdkRequests, 'mcp.server.operation.duration records'],
  ];
  console.log(
    `OpenTelemetry SDK, ${what}: ${expected.map(([got, , name]) => `${got.toLocaleString('en-US')} ${name}`).join(', ')} ` +
      `for ${sdkCalls.toLocaleString('en-US')} calls with the SDK registered ` +
      `(${sdkRequests.toLocaleString('en-US')} over loopback)`,
  );
  const short = expected.filter(([got, want]) => got < want);
  if (short.length > 0) {
    for (const [got, want, name] of short) {
      console.error(`correctness check failed: ${got} ${name} for ${want} calls with the SDK`);
    }
    process.exit(1);
  }
}

/** Runs `call` back to back for at least `ms`; returns how many calls ran and calls per second. */
async function slice(call: Call, ms: number): Promise<{ calls: number; rate: number }> {
  let calls = 0;
  const started = performance.now();
  let elapsed: number;
  do {
    for (let i = 0; i < CHUNK; i++) await call();
    calls += CHUNK;
    elapsed = performance.now() - started;
  } while (elapsed < ms);
  return { calls, rate: (calls * 1000) / elapsed };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (value: number) => Math.round(value).toLocaleString('en-US').padStart(12);

async function verify(): Promise<void> {
  const before = hookRuns;
  const result = await invoker.invoke('bench_echo', ARGS, OPTIONS);
  const expected = { ok: true, data: { text: 'hi' } };
  const problems: string[] = [];
  if (!isDeepStrictEqual(result, expected)) {
    problems.push(
      `invoker returned ${JSON.stringify(result)}, expected ${JSON.stringify(expected)}`,
    );
  }
  if (hookRuns !== before + 1) problems.push(`afterToolCall ran ${hookRuns - before} times, not 1`);
  const direct = output.parse(await echo(input.parse(ARGS)));
  if (!isDeepStrictEqual(direct, expected.data)) {
    problems.push(`baseline returned ${JSON.stringify(direct)}`);
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(`correctness check failed: ${problem}`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  await verify();

  const invokerPath: Path = ["invoker   invoke('bench_echo', …)", invokerCall];
  const paths: Path[] = [
    ['baseline  parse → handler → parse', baselineCall],
    ['floor     the same, with frame + hook', floorCall],
    invokerPath,
    ...(telemetry ? [withSdk('invoker   the same, OpenTelemetry SDK on', invokerPath)] : []),
  ];
  console.log(
    `bench:core — node ${process.version}, ${WARMUP_ROUNDS} warm-up + ${ROUNDS} rounds of ` +
      `${SLICE_MS} ms per path, interleaved (baseline, floor, invoker${telemetry ? ', invoker with the SDK' : ''})`,
  );
  for (let round = 0; round < WARMUP_ROUNDS; round++) {
    for (const path of paths) await slicePath(path, SLICE_MS);
  }

  const hooksBefore = hookRuns;
  const floorHooksBefore = floorHookRuns;
  const calls = paths.map(() => 0);
  const rates: number[][] = paths.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, path] of paths.entries()) {
      const measured = await slicePath(path, SLICE_MS);
      rates[index].push(measured.rate);
      calls[index] += measured.calls;
    }
  }
  for (const [ran, expected, what] of [
    [hookRuns - hooksBefore, calls[2] + (calls[3] ?? 0), 'afterToolCall'],
    [floorHookRuns - floorHooksBefore, calls[1], "the floor's hook"],
  ] as const) {
    if (ran !== expected) {
      console.error(`correctness check failed: ${what} ran ${ran} times during ${expected} calls`);
      process.exit(1);
    }
  }

  const medians = rates.map(median);
  const [base, floor, inv] = medians;
  const ratio = inv / base;
  // Each round's slices ran back to back, so their ratios are steadier under outside load.
  const paired = (index: number, over: number) =>
    median(rates[index].map((value, round) => value / rates[over][round]));
  const range = (values: readonly number[]) =>
    `${Math.round(Math.min(...values)).toLocaleString('en-US')}–${Math.round(Math.max(...values)).toLocaleString('en-US')}`;
  const pct = (value: number) => `${(value * 100).toFixed(1).padStart(11)}%`;

  console.log('');
  console.log(
    'path                                     median calls/s   µs per call   per-slice range',
  );
  for (const [index, [label]] of paths.entries()) {
    console.log(
      `${label.padEnd(40)} ${fmt(medians[index])}   ${(1e6 / medians[index]).toFixed(2).padStart(11)}   ${range(rates[index])}`,
    );
  }
  console.log('');
  console.log(
    `invoker / baseline                       ${pct(ratio)}   (per round: ${(paired(2, 0) * 100).toFixed(1)}%)`,
  );
  console.log(
    `floor / baseline                         ${pct(floor / base)}   (per round: ${(paired(1, 0) * 100).toFixed(1)}%)`,
  );
  console.log(
    `invoker / floor                          ${pct(inv / floor)}   (per round: ${(paired(2, 1) * 100).toFixed(1)}%)`,
  );
  if (telemetry) {
    const sdk = medians[3];
    console.log(
      `invoker with the SDK / invoker           ${pct(sdk / inv)}   (per round: ${(paired(3, 2) * 100).toFixed(1)}%; ` +
        `${(1e6 / sdk - 1e6 / inv).toFixed(2)} µs more per call: its execute_tool span and duration record)`,
    );
  }
  console.log('');
  console.log(
    `goal: invoker keeps at least ${GOAL * 100}% of the baseline's throughput — ` +
      `${ratio >= GOAL ? 'PASS' : 'BELOW'} (${(ratio * 100).toFixed(1)}%)`,
  );
  if (sink === 0) console.log('(sink empty)');
  await verifyTelemetry('in-process invoke');
}

// ---------------------------------------------------------------------------------------------
// In-process invoke against one tools/call over loopback.

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** One POST on the keep-alive connection; the answer's body. */
function postJson(url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(text)
            : reject(new Error(`HTTP ${res.statusCode}: ${text}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The echoed text of a `tools/call` answer, JSON or SSE-framed (`data: {...}`). */
function echoedText(body: string): unknown {
  const json = body.startsWith('{')
    ? body
    : body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
  const message = JSON.parse(json) as { result?: { structuredContent?: { text?: unknown } } };
  return message.result?.structuredContent?.text;
}

async function loopback(): Promise<void> {
  class LoopbackModule {}
  Module({ imports: [ToolsModule.forRoot({ registry: [tool] })] })(LoopbackModule);
  const app = await NestFactory.create(LoopbackModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/mcp`;
  const tools = app.get(ToolInvoker);

  const init = await postJson(
    url,
    MCP_HEADERS,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench-core', version: '0' },
      },
    }),
  );
  const version = (
    JSON.parse(init.slice(init.indexOf('{'))) as { result: { protocolVersion: string } }
  ).result.protocolVersion;
  const legacy = {
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': version },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'bench_echo', arguments: ARGS },
    }),
  };
  // What @modelcontextprotocol/client pinned to 2026-07-28 sends for the same call.
  const modern = {
    headers: {
      ...MCP_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'bench_echo',
    },
    body: JSON.stringify({
      method: 'tools/call',
      params: {
        name: 'bench_echo',
        arguments: ARGS,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench-core', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
      jsonrpc: '2.0',
      id: 1,
    }),
  };

  const invokeCall: Call = async () => {
    const result = await tools.invoke<{ text: string }>('bench_echo', ARGS, OPTIONS);
    if (!result.ok || result.data.text !== ARGS.text) throw new Error(JSON.stringify(result));
    sink += result.data.text.length;
  };
  const httpCall =
    (req: { headers: Record<string, string>; body: string }): Call =>
    async () => {
      const text = echoedText(await postJson(url, req.headers, req.body));
      if (text !== ARGS.text) throw new Error(`tools/call answered ${String(text)}`);
      sink += text.length;
    };
  const plainPaths: Path[] = [
    ["invoke   ToolInvoker.invoke('bench_echo')", invokeCall],
    [`tools/call over loopback, ${version}`, httpCall(legacy)],
    ['tools/call over loopback, 2026-07-28', httpCall(modern)],
  ];
  // With BENCH_OTEL, each path again with the SDK registered, after the three without.
  const paths: Path[] = [
    ...plainPaths,
    ...(telemetry
      ? [
          withSdk('invoke   the same, OpenTelemetry SDK on', plainPaths[0]),
          withSdk(`tools/call over loopback, ${version} + SDK`, plainPaths[1]),
          withSdk('tools/call over loopback, 2026-07-28 + SDK', plainPaths[2]),
        ]
      : []),
  ];
  const isHttp = (index: number) => index % plainPaths.length !== 0;
  try {
    for (const [, call] of plainPaths) await call(); // correctness first: each throws on a wrong answer
    console.log('');
    console.log(
      `in-process invoke against one MCP tools/call over loopback (Nest + Express, same process, ` +
        `sequential) — ${WARMUP_ROUNDS} warm-up + ${ROUNDS} rounds of ${SLICE_MS} ms per path` +
        (telemetry ? ', each with and without the OpenTelemetry SDK' : ''),
    );
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      for (const [index, path] of paths.entries()) {
        await slicePath(path, SLICE_MS, isHttp(index));
      }
    }
    const rates: number[][] = paths.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, path] of paths.entries()) {
        rates[index].push((await slicePath(path, SLICE_MS, isHttp(index))).rate);
      }
    }
    const medians = rates.map(median);
    console.log('');
    console.log('path                                        median calls/s   µs per call');
    for (const [index, [label]] of paths.entries()) {
      console.log(
        `${label.padEnd(42)} ${fmt(medians[index])}   ${(1e6 / medians[index]).toFixed(1).padStart(11)}`,
      );
    }
    for (const index of [1, 2]) {
      const paired = median(rates[0].map((value, round) => value / rates[index][round]));
      console.log(
        `invoke / ${paths[index][0].padEnd(33)} ${(medians[0] / medians[index]).toFixed(1).padStart(11)}×` +
          `   (median of the per-round ratios: ${paired.toFixed(1)}×)`,
      );
    }
    if (telemetry) {
      console.log('');
      console.log(
        'with the SDK / without (throughput)           median   per round   µs more per call',
      );
      for (const index of plainPaths.keys()) {
        const sdk = index + plainPaths.length;
        const paired = median(rates[sdk].map((value, round) => value / rates[index][round]));
        console.log(
          `${plainPaths[index][0].padEnd(42)} ${`${((medians[sdk] / medians[index]) * 100).toFixed(1)}%`.padStart(9)}` +
            `${`${(paired * 100).toFixed(1)}%`.padStart(12)}` +
            `${(1e6 / medians[sdk] - 1e6 / medians[index]).toFixed(1).padStart(19)}`,
        );
      }
    }
    await verifyTelemetry('in-process invoke and loopback');
  } finally {
    agent.destroy();
    await app.close();
  }
}

await main();
await loopback();
