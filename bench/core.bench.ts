/**
 * Throughput of `invoker.invoke` against a direct `output.parse(await handler(input.parse(args)))`
 * on a trivial tool, measured in one process, interleaved (baseline, invoker, baseline, invoker, …)
 * after a warm-up, so that JIT state, GC pressure and CPU frequency affect both sides alike.
 *
 * Both paths share the process on purpose: once the invoker has run, Node 20's AsyncLocalStorage
 * promise hooks are on for every promise, the baseline's included, as they would be in a server.
 *
 * Run with `npm run bench:core`. It prints figures only; it asserts correctness, never timings.
 * Tune with BENCH_SLICE_MS (default 300) and BENCH_ROUNDS (default 8).
 */
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../lib/index.js';

const SLICE_MS = positiveInt(process.env.BENCH_SLICE_MS, 300);
const ROUNDS = positiveInt(process.env.BENCH_ROUNDS, 8);
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

async function invokerCall(): Promise<void> {
  const result = await invoker.invoke<{ text: string }>('bench_echo', ARGS, OPTIONS);
  if (result.ok) sink += result.data.text.length;
}

type Call = () => Promise<void>;

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

  console.log(
    `bench:core — node ${process.version}, ${WARMUP_ROUNDS} warm-up + ${ROUNDS} rounds of ` +
      `${SLICE_MS} ms per side, interleaved (baseline, invoker)`,
  );
  for (let round = 0; round < WARMUP_ROUNDS; round++) {
    await slice(baselineCall, SLICE_MS);
    await slice(invokerCall, SLICE_MS);
  }

  const hooksBefore = hookRuns;
  let invokerCalls = 0;
  const baseline: number[] = [];
  const measured: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push((await slice(baselineCall, SLICE_MS)).rate);
    const { calls, rate } = await slice(invokerCall, SLICE_MS);
    measured.push(rate);
    invokerCalls += calls;
  }
  if (hookRuns - hooksBefore !== invokerCalls) {
    console.error(
      `correctness check failed: afterToolCall ran ${hookRuns - hooksBefore} times ` +
        `during ${invokerCalls} timed calls`,
    );
    process.exit(1);
  }

  const base = median(baseline);
  const inv = median(measured);
  const ratio = inv / base;
  // Each round's two slices ran back to back, so their ratio is steadier under outside load.
  const paired = median(measured.map((value, round) => value / baseline[round]));
  const range = (values: readonly number[]) =>
    `${Math.round(Math.min(...values)).toLocaleString('en-US')}–${Math.round(Math.max(...values)).toLocaleString('en-US')}`;

  console.log('');
  console.log('path                                   median calls/s   per-slice range');
  console.log(`baseline  parse → handler → parse       ${fmt(base)}   ${range(baseline)}`);
  console.log(`invoker   invoke('bench_echo', …)       ${fmt(inv)}   ${range(measured)}`);
  console.log(`invoker / baseline                      ${(ratio * 100).toFixed(1).padStart(11)}%`);
  console.log(`  (median of the per-round ratios: ${(paired * 100).toFixed(1)}%)`);
  console.log('');
  console.log(
    `goal: invoker keeps at least ${GOAL * 100}% of the baseline's throughput — ` +
      `${ratio >= GOAL ? 'PASS' : 'BELOW'} (${(ratio * 100).toFixed(1)}%)`,
  );
  if (sink === 0) console.log('(sink empty)');
}

await main();
