/**
 * `npm run bench:scale`: toolwright on Express with 10, 100 and 1,000 registered tools (echo and
 * tool_0 … tool_{N-2}). Each of BENCH_ROUNDS rounds starts a server per size and measures every
 * cell on each of them in turn, as bench:http does with its targets. For each size:
 * `tools/call echo` and `tools/list` req/s and server CPU per answer on both eras (same cells and
 * validation as bench:http), the `tools/list` answer size, and bootstrap time (process start →
 * listening, from the child's ready line; BENCH_BOOTS extra start-only samples per size), all
 * printed as ratios to the 10-tool case.
 *
 * Environment: BENCH_SCALE_SIZES (10,100,1000), BENCH_WARMUP_S (1), BENCH_FIRST_WARMUP_S (8,
 * the first cell after a server starts), BENCH_DURATION_S (3), BENCH_ROUNDS (5; figures are
 * medians over the rounds: the goals' 10 % margin is narrower than one cell's swing),
 * BENCH_BOOTS (3), BENCH_CONNECTIONS (10), BENCH_NODE_OPTIONS.
 */
import {
  cellMedians,
  ERAS,
  otherCores,
  runRound,
  SCENARIO_LABEL,
  SCENARIOS,
  type CellRun,
  type CellTarget,
} from './cells.js';
import { envNumber, fixed, int, kib, machineLine, median, ms, ratio, table } from './format.js';
import {
  BenchFailure,
  capture2026,
  initialize2025,
  requests2025,
  type Era,
  type EraRequests,
  type Scenario,
} from './mcp.js';
import type { ReadyLine } from '../shared/ready.js';
import { startServer, type ServerSpec } from './server-process.js';

const WARMUP_S = envNumber('BENCH_WARMUP_S', 1);
const FIRST_WARMUP_S = envNumber('BENCH_FIRST_WARMUP_S', 8);
const DURATION_S = envNumber('BENCH_DURATION_S', 3, 0.5);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 5, 1));
const BOOTS = Math.round(envNumber('BENCH_BOOTS', 3, 0));
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1));
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '10,100,1000').split(',').map((raw) => {
  const size = Number(raw.trim());
  if (!Number.isInteger(size) || size < 1) {
    throw new Error(`BENCH_SCALE_SIZES: "${raw}" is not a positive integer`);
  }
  return size;
});

const spec = (size: number): ServerSpec => ({
  id: `toolwright-express-${size}`,
  label: `toolwright (Express, ${int(size)} tools)`,
  entry: 'servers/toolwright.js',
  // The tools alone: the sizes' boot phases stay comparable with runs before resources existed.
  env: { ADAPTER: 'express', TOOLS: String(size), OPERATIONS: '0' },
});

const runs = new Map<string, CellRun[]>();
interface BootSamples {
  bootMs: number[];
  setupMs: number[];
  defineMs: number[];
  initMs: number[];
}
const boots = new Map<number, BootSamples>();
const key = (size: number, scenario: Scenario, era: Era) => `${size}|${scenario}|${era}`;

/** Median absolute deviation: how far samples stray from their median, ignoring outliers. */
function mad(values: readonly number[]): number {
  const middle = median(values);
  return median(values.map((value) => Math.abs(value - middle)));
}

function recordBoot(size: number, ready: ReadyLine): void {
  const entry = boots.get(size) ?? { bootMs: [], setupMs: [], defineMs: [], initMs: [] };
  entry.bootMs.push(ready.bootMs);
  entry.setupMs.push(ready.setupMs ?? NaN);
  entry.defineMs.push(ready.phases?.define ?? NaN);
  entry.initMs.push(ready.phases?.init ?? NaN);
  boots.set(size, entry);
}

/** Starts the server of one size for a round, with its first 2025 session. */
async function startSize(
  size: number,
  round: number,
  modern: { requests?: EraRequests },
): Promise<CellTarget> {
  const server = await startServer(spec(size));
  try {
    recordBoot(size, server.ready);
    console.log(
      `[round ${round}] ${server.spec.label}: ready in ${int(server.ready.bootMs)} ms ` +
        `(app setup ${int(server.ready.setupMs ?? NaN)} ms)`,
    );
    modern.requests ??= await capture2026(server.url, size);
    const legacy = requests2025(await initialize2025(server.url, server.spec.label));
    const settings = {
      warmupS: WARMUP_S,
      firstWarmupS: FIRST_WARMUP_S,
      durationS: DURATION_S,
      connections: CONNECTIONS,
      toolCount: size,
    };
    return { server, requests: { '2025': legacy, '2026': modern.requests }, settings };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** A round: the server of every size started, then each cell measured on all of them in turn. */
async function runSizes(round: number, modern: { requests?: EraRequests }): Promise<void> {
  console.log('');
  const started: CellTarget[] = [];
  try {
    for (const size of SIZES) started.push(await startSize(size, round, modern));
    await runRound(started, round, (target, scenario, era, run) => {
      const size = target.settings.toolCount;
      runs.set(key(size, scenario, era), [...(runs.get(key(size, scenario, era)) ?? []), run]);
    });
  } finally {
    await Promise.all(started.map((target) => target.server.stop()));
  }
}

function report(): void {
  const base = SIZES[0];
  const cell = (size: number, scenario: Scenario, era: Era) => {
    const found = runs.get(key(size, scenario, era)) ?? [];
    const { rps, cpuUs: cpu, p50 } = cellMedians(found);
    return {
      rps,
      cpu,
      p50,
      bytes: found[0]?.bodyBytes ?? NaN,
      others: otherCores(found),
    };
  };
  console.log(
    `\n=== Results: median of ${ROUNDS} round(s) of ${DURATION_S} s per cell, ${CONNECTIONS} ` +
      `connections; ratios are to the ${int(base)}-tool case`,
  );

  const phase = (size: number, name: keyof BootSamples) => median(boots.get(size)![name]);
  const bootRows = SIZES.map((size) => {
    const row = [int(size)];
    for (const name of ['bootMs', 'setupMs', 'defineMs', 'initMs'] as const) {
      row.push(`${int(phase(size, name))} ms`, ratio(phase(size, name) / phase(base, name)));
    }
    const setups = boots.get(size)!.setupMs;
    row.push(`±${int(mad(setups))} ms`, String(setups.length));
    return row;
  });
  console.log(
    '\nbootstrap (medians): boot = process start → listening; setup = the server module after its ' +
      'static imports → listening; define = defineRuntimeTool × N; init = NestFactory.create + ' +
      'app.init (registry compiled, MCP endpoint prepared)',
  );
  console.log(
    table(
      [
        'tools',
        'boot',
        '× base',
        'setup',
        '× base',
        'define',
        '× base',
        'init',
        '× base',
        'setup MAD',
        'samples',
      ],
      bootRows,
    ),
  );

  for (const scenario of SCENARIOS) {
    for (const era of ERAS) {
      const b = cell(base, scenario, era);
      const rows = SIZES.map((size) => {
        const c = cell(size, scenario, era);
        const row = [
          int(size),
          int(c.rps),
          ratio(c.rps / b.rps),
          ms(c.p50),
          fixed(c.cpu, 0),
          ratio(c.cpu / b.cpu),
          fixed(c.others, 2),
        ];
        if (scenario === 'list') {
          row.push(kib(c.bytes), ratio(c.bytes / b.bytes), fixed((c.cpu / c.bytes) * 1000, 2));
        }
        return row;
      });
      const header = ['tools', 'req/s', '× base', 'p50', 'CPU µs/req', '× base', 'other cores'];
      if (scenario === 'list') header.push('answer', '× base', 'CPU µs per KB');
      console.log(`\n${SCENARIO_LABEL[scenario]} — ${era === '2026' ? '2026-07-28' : '2025'} era`);
      console.log(table(header, rows));
    }
  }

  const last = SIZES[SIZES.length - 1];
  if (last === base) return;
  const line = (ok: boolean, text: string) => console.log(`  ${ok ? 'PASS ' : 'BELOW'}  ${text}`);
  console.log('\n=== Verdicts against issue 7 (informational: the exit code ignores them)');
  for (const era of ERAS) {
    const r = cell(last, 'call', era).rps / cell(base, 'call', era).rps;
    line(
      r >= 0.9,
      `tools/call ${era} with ${int(last)} tools: ${ratio(r)} the ${int(base)}-tool req/s (goal ≥ 0.90×)`,
    );
  }
  for (const era of ERAS) {
    const cost = cell(last, 'list', era).cpu / cell(base, 'list', era).cpu;
    const size = cell(last, 'list', era).bytes / cell(base, 'list', era).bytes;
    line(
      cost <= size,
      `tools/list ${era}: CPU per answer grew ${ratio(cost)} while the answer grew ${ratio(size)} (goal: no faster)`,
    );
  }
  // Linear growth: each added tool costs the same. The cost of the tools is define + init; a
  // step whose growth is inside the samples' spread says nothing, and is reported as such.
  const work = (size: number) => phase(size, 'defineMs') + phase(size, 'initMs');
  const spreadOf = (size: number) =>
    mad(boots.get(size)!.defineMs.map((d, i) => d + boots.get(size)!.initMs[i]));
  const steps = SIZES.slice(1).map((size, i) => {
    const from = SIZES[i];
    const growth = work(size) - work(from);
    return {
      text: `${int(from)}→${int(size)}: ${fixed(growth / (size - from), 3)} ms per tool`,
      perTool: growth / (size - from),
      measurable: growth > spreadOf(size) + spreadOf(from),
    };
  });
  const measurable = steps.filter((step) => step.measurable);
  const lastStep = steps[steps.length - 1];
  const firstMeasurable = measurable[0];
  const verdict =
    measurable.length < 2 ? undefined : lastStep.perTool <= firstMeasurable.perTool * 1.5;
  console.log(
    `  ${verdict === undefined ? 'n/a  ' : verdict ? 'PASS ' : 'BELOW'}  bootstrap grows linearly ` +
      `(define + init per added tool, ${steps.map((step) => `${step.text}${step.measurable ? '' : ' (within the noise)'}`).join('; ')}; ` +
      `goal: the last step costs no more per tool than the first measurable one, within 1.5×)`,
  );
}

async function main(): Promise<void> {
  console.log(`bench:scale — ${await machineLine()}`);
  console.log(
    `toolwright (Express) with ${SIZES.map(int).join(', ')} tools; ${ROUNDS} round(s), interleaved; ` +
      `warm-up ${WARMUP_S} s (${FIRST_WARMUP_S} s for a server's first cell) + ${DURATION_S} s per cell, ` +
      `${CONNECTIONS} connections; ` +
      `${BOOTS} extra boot samples per size`,
  );
  const started = Date.now();
  const modern: { requests?: EraRequests } = {};
  for (let round = 1; round <= ROUNDS; round++) await runSizes(round, modern);
  // Start-only samples, the order reversed every other time (10 100 1000, 1000 100 10, …).
  const order = (boot: number) => (boot % 2 === 0 ? SIZES : [...SIZES].reverse());
  for (let boot = 0; boot < BOOTS; boot++) {
    for (const size of order(boot)) {
      const server = await startServer(spec(size));
      recordBoot(size, server.ready);
      await server.stop();
    }
  }
  report();
  console.log(
    `\nbench:scale took ${fixed((Date.now() - started) / 1000, 0)} s; ${await machineLine()}`,
  );
}

try {
  await main();
} catch (error) {
  console.error(
    `\nbench:scale FAILED: ${error instanceof BenchFailure ? error.message : (error as Error).stack}`,
  );
  process.exitCode = 1;
}
