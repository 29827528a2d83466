/**
 * `npm run bench:scale`: toolwright with 10, 100 and 1,000 registered tools (echo and
 * tool_0 … tool_{N-2}) on Express and on Fastify, each beside its adapter's floor serving as many
 * tools (`servers/floor.ts`: the same Nest app and adapter answering the same JSON-RPC with no
 * MCP SDK, as bench:http's `floor-express` and `floor-fastify`). Each of BENCH_ROUNDS rounds
 * starts every server (toolwright and floor, per adapter and size) and measures every cell on
 * each of them in turn, as bench:http does with its targets. For each adapter and size:
 * `tools/call echo` and `tools/list` req/s and server CPU per answer on both eras (same cells and
 * validation as bench:http), the `tools/list` answer size, and toolwright's bootstrap time
 * (process start → listening, from the child's ready line; BENCH_BOOTS extra start-only samples
 * per adapter and size), as ratios to the same adapter's 10-tool case; and toolwright's CPU per
 * answer over its adapter's floor at the same size, same cell.
 *
 * Environment: BENCH_SCALE_SIZES (10,100,1000), BENCH_SCALE_ADAPTERS (express,fastify),
 * BENCH_WARMUP_S (1), BENCH_FIRST_WARMUP_S (8, the first cell after a server starts),
 * BENCH_DURATION_S (3), BENCH_ROUNDS (5; figures are medians over the rounds: the goals' 10 %
 * margin is narrower than one cell's swing), BENCH_BOOTS (3), BENCH_CONNECTIONS (10),
 * BENCH_NODE_OPTIONS.
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
import type { AdapterName } from '../shared/nest-app.js';
import { startServer, type ServerSpec } from './server-process.js';
import { ALL_TARGETS, type BenchTarget } from './targets.js';

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

/** A toolwright target of bench:http and the floor target of its adapter. */
interface AdapterPair {
  readonly toolwright: BenchTarget;
  readonly floor: BenchTarget;
}

function pairOf(adapter: AdapterName): AdapterPair {
  const toolwright = ALL_TARGETS.find((target) => target.id === `toolwright-${adapter}`);
  const floor = ALL_TARGETS.find((target) => target.id === toolwright?.floor);
  if (!toolwright || !floor) throw new Error(`no toolwright and floor targets for ${adapter}`);
  return { toolwright, floor };
}

function selectedAdapters(): AdapterPair[] {
  const known: readonly AdapterName[] = ['express', 'fastify'];
  const names = (process.env.BENCH_SCALE_ADAPTERS || known.join(','))
    .split(',')
    .map((name) => name.trim());
  const unknown = names.filter((name) => !known.includes(name as AdapterName));
  if (unknown.length > 0) {
    throw new Error(`BENCH_SCALE_ADAPTERS: unknown ${unknown.join(', ')}; use ${known.join(', ')}`);
  }
  return known.filter((adapter) => names.includes(adapter)).map(pairOf);
}

const ADAPTERS = selectedAdapters();

/** `target` serving `size` tools; `env` added to its own. */
const sized = (
  target: BenchTarget,
  size: number,
  env: Readonly<Record<string, string>> = {},
): ServerSpec => ({
  id: `${target.id}-${size}`,
  label: `${target.label}, ${int(size)} tools`,
  entry: target.entry,
  env: { ...target.env, TOOLS: String(size), ...env },
});

// The tools alone: the sizes' boot phases stay comparable with runs before resources existed.
const toolwrightSpec = (pair: AdapterPair, size: number) =>
  sized(pair.toolwright, size, { OPERATIONS: '0' });
const floorSpec = (pair: AdapterPair, size: number) => sized(pair.floor, size);

/** Every server of a round: per adapter and size, toolwright then its floor. */
const SERVERS = ADAPTERS.flatMap((pair) =>
  SIZES.flatMap((size) => [
    { spec: toolwrightSpec(pair, size), size },
    { spec: floorSpec(pair, size), size },
  ]),
);

const runs = new Map<string, CellRun[]>();
interface BootSamples {
  bootMs: number[];
  setupMs: number[];
  defineMs: number[];
  initMs: number[];
}
/** Boot samples, by server id (the report reads toolwright's). */
const boots = new Map<string, BootSamples>();
const key = (id: string, scenario: Scenario, era: Era) => `${id}|${scenario}|${era}`;

/** Median absolute deviation: how far samples stray from their median, ignoring outliers. */
function mad(values: readonly number[]): number {
  const middle = median(values);
  return median(values.map((value) => Math.abs(value - middle)));
}

function recordBoot(spec: ServerSpec, ready: ReadyLine): void {
  const entry = boots.get(spec.id) ?? { bootMs: [], setupMs: [], defineMs: [], initMs: [] };
  entry.bootMs.push(ready.bootMs);
  entry.setupMs.push(ready.setupMs ?? NaN);
  entry.defineMs.push(ready.phases?.define ?? NaN);
  entry.initMs.push(ready.phases?.init ?? NaN);
  boots.set(spec.id, entry);
}

/** Starts one server for a round, with its first 2025 session. */
async function startOne(
  spec: ServerSpec,
  size: number,
  round: number,
  modern: { requests?: EraRequests },
): Promise<CellTarget> {
  const server = await startServer(spec);
  try {
    recordBoot(spec, server.ready);
    console.log(
      `[round ${round}] ${spec.label}: ready in ${int(server.ready.bootMs)} ms ` +
        `(app setup ${int(server.ready.setupMs ?? NaN)} ms)`,
    );
    modern.requests ??= await capture2026(server.url, size);
    const legacy = requests2025(await initialize2025(server.url, spec.label));
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

/** A round: every server started, then each cell measured on all of them in turn. */
async function runServers(round: number, modern: { requests?: EraRequests }): Promise<void> {
  console.log('');
  const started: CellTarget[] = [];
  try {
    for (const { spec, size } of SERVERS) started.push(await startOne(spec, size, round, modern));
    await runRound(started, round, (target, scenario, era, run) => {
      const cell = key(target.server.spec.id, scenario, era);
      runs.set(cell, [...(runs.get(cell) ?? []), run]);
    });
  } finally {
    await Promise.all(started.map((target) => target.server.stop()));
  }
}

function report(): void {
  const base = SIZES[0];
  const cell = (spec: ServerSpec, scenario: Scenario, era: Era) => {
    const found = runs.get(key(spec.id, scenario, era)) ?? [];
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
      `connections; × base = over the same server's ${int(base)}-tool case; × floor = ` +
      `toolwright's CPU per answer over its adapter's floor serving as many tools, same cell`,
  );

  const phase = (pair: AdapterPair, size: number, name: keyof BootSamples) =>
    median(boots.get(toolwrightSpec(pair, size).id)![name]);
  const bootRows = ADAPTERS.flatMap((pair) =>
    SIZES.map((size) => {
      const row = [pair.toolwright.label, int(size)];
      for (const name of ['bootMs', 'setupMs', 'defineMs', 'initMs'] as const) {
        row.push(
          `${int(phase(pair, size, name))} ms`,
          ratio(phase(pair, size, name) / phase(pair, base, name)),
        );
      }
      const setups = boots.get(toolwrightSpec(pair, size).id)!.setupMs;
      row.push(`±${int(mad(setups))} ms`, String(setups.length));
      return row;
    }),
  );
  console.log(
    '\nbootstrap (medians): boot = process start → listening; setup = the server module after its ' +
      'static imports → listening; define = defineRuntimeTool × N; init = NestFactory.create + ' +
      'app.init (registry compiled, MCP endpoint prepared)',
  );
  console.log(
    table(
      [
        'server',
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
      const rows = ADAPTERS.flatMap((pair) => {
        const b = cell(toolwrightSpec(pair, base), scenario, era);
        const fb = cell(floorSpec(pair, base), scenario, era);
        return SIZES.map((size) => {
          const c = cell(toolwrightSpec(pair, size), scenario, era);
          const f = cell(floorSpec(pair, size), scenario, era);
          const row = [
            pair.toolwright.label,
            int(size),
            int(c.rps),
            ratio(c.rps / b.rps),
            ms(c.p50),
            fixed(c.cpu, 0),
            ratio(c.cpu / b.cpu),
            fixed(f.cpu, 0),
            ratio(f.cpu / fb.cpu),
            ratio(c.cpu / f.cpu),
            fixed(c.others, 2),
          ];
          if (scenario === 'list') {
            row.push(kib(c.bytes), ratio(c.bytes / b.bytes), fixed((c.cpu / c.bytes) * 1000, 2));
          }
          return row;
        });
      });
      const header = [
        'server',
        'tools',
        'req/s',
        '× base',
        'p50',
        'CPU µs/req',
        '× base',
        'floor CPU µs/req',
        '× base',
        '× floor CPU/req',
        'other cores',
      ];
      if (scenario === 'list') header.push('answer', '× base', 'CPU µs per KB');
      console.log(`\n${SCENARIO_LABEL[scenario]} — ${era === '2026' ? '2026-07-28' : '2025'} era`);
      console.log(table(header, rows));
    }
  }

  console.log(
    `\n=== toolwright/floor CPU per answer by size: each toolwright server over the floor of its ` +
      `adapter serving as many tools, same cell, same rounds, at ${SIZES.map(int).join(' → ')} ` +
      `tools, and the last ratio over the first (above 1×: toolwright's cost grows faster with ` +
      `the tools than the framework's; informational: the exit code ignores it)`,
  );
  for (const pair of ADAPTERS) {
    for (const scenario of SCENARIOS) {
      for (const era of ERAS) {
        const over = SIZES.map(
          (size) =>
            cell(toolwrightSpec(pair, size), scenario, era).cpu /
            cell(floorSpec(pair, size), scenario, era).cpu,
        );
        console.log(
          `  ${pair.toolwright.label} / ${pair.floor.label}, ${SCENARIO_LABEL[scenario]} ${era}: ` +
            `${over.map(ratio).join(' → ')} (${ratio(over[over.length - 1] / over[0])})`,
        );
      }
    }
  }

  const last = SIZES[SIZES.length - 1];
  if (last === base) return;
  const line = (ok: boolean, text: string) => console.log(`  ${ok ? 'PASS ' : 'BELOW'}  ${text}`);
  console.log('\n=== Verdicts against issue 7 (informational: the exit code ignores them)');
  for (const pair of ADAPTERS) {
    const at = (size: number, scenario: Scenario, era: Era) =>
      cell(toolwrightSpec(pair, size), scenario, era);
    console.log(
      `${pair.toolwright.label}${pair.toolwright.id === 'toolwright-express' ? '' : ' (the goals name Express; shown for reference)'}`,
    );
    for (const era of ERAS) {
      const r = at(last, 'call', era).rps / at(base, 'call', era).rps;
      line(
        r >= 0.9,
        `tools/call ${era} with ${int(last)} tools: ${ratio(r)} the ${int(base)}-tool req/s (goal ≥ 0.90×)`,
      );
    }
    for (const era of ERAS) {
      const cost = at(last, 'list', era).cpu / at(base, 'list', era).cpu;
      const size = at(last, 'list', era).bytes / at(base, 'list', era).bytes;
      line(
        cost <= size,
        `tools/list ${era}: CPU per answer grew ${ratio(cost)} while the answer grew ${ratio(size)} (goal: no faster)`,
      );
    }
    // Linear growth: each added tool costs the same. The cost of the tools is define + init; a
    // step whose growth is inside the samples' spread says nothing, and is reported as such.
    const work = (size: number) => phase(pair, size, 'defineMs') + phase(pair, size, 'initMs');
    const spreadOf = (size: number) => {
      const samples = boots.get(toolwrightSpec(pair, size).id)!;
      return mad(samples.defineMs.map((d, i) => d + samples.initMs[i]));
    };
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
}

async function main(): Promise<void> {
  console.log(`bench:scale — ${await machineLine()}`);
  console.log(
    `${ADAPTERS.map((pair) => `${pair.toolwright.label} beside ${pair.floor.label}`).join('; ')}; ` +
      `${SIZES.map(int).join(', ')} tools; ${ROUNDS} round(s), interleaved; ` +
      `warm-up ${WARMUP_S} s (${FIRST_WARMUP_S} s for a server's first cell) + ${DURATION_S} s per cell, ` +
      `${CONNECTIONS} connections; ` +
      `${BOOTS} extra boot samples per toolwright server`,
  );
  const started = Date.now();
  const modern: { requests?: EraRequests } = {};
  for (let round = 1; round <= ROUNDS; round++) await runServers(round, modern);
  // Start-only samples of toolwright, the sizes' order reversed every other time (10 100 1000,
  // 1000 100 10, …).
  const order = (boot: number) => (boot % 2 === 0 ? SIZES : [...SIZES].reverse());
  for (let boot = 0; boot < BOOTS; boot++) {
    for (const pair of ADAPTERS) {
      for (const size of order(boot)) {
        const spec = toolwrightSpec(pair, size);
        const server = await startServer(spec);
        recordBoot(spec, server.ready);
        await server.stop();
      }
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
