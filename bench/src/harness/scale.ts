/**
 * `npm run bench:scale`: toolwright on Express with 10, 100 and 1,000 registered tools (echo and
 * tool_0 … tool_{N-2}), started in turn and interleaved over BENCH_ROUNDS rounds. For each size:
 * `tools/call echo` and `tools/list` req/s and server CPU per answer on both eras (same cells and
 * validation as bench:http), the `tools/list` answer size, and bootstrap time (process start →
 * listening, from the child's ready line; BENCH_BOOTS extra start-only samples per size), all
 * printed as ratios to the 10-tool case.
 *
 * Environment: BENCH_SCALE_SIZES (10,100,1000), BENCH_WARMUP_S (1), BENCH_DURATION_S (3),
 * BENCH_ROUNDS (2), BENCH_BOOTS (3), BENCH_CONNECTIONS (10), BENCH_NODE_OPTIONS.
 */
import { cpuPerAnswer, ERAS, runCell, SCENARIO_LABEL, SCENARIOS, type CellRun } from './cells.js';
import {
  envNumber,
  fixed,
  int,
  kib,
  machineLine,
  mean,
  median,
  ms,
  ratio,
  table,
} from './format.js';
import {
  BenchFailure,
  capture2026,
  initialize2025,
  requests2025,
  type Era,
  type EraRequests,
  type Scenario,
} from './mcp.js';
import { startServer, type ServerSpec } from './server-process.js';

const WARMUP_S = envNumber('BENCH_WARMUP_S', 1);
const DURATION_S = envNumber('BENCH_DURATION_S', 3, 0.5);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 2, 1));
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
  env: { ADAPTER: 'express', TOOLS: String(size) },
});

const runs = new Map<string, CellRun[]>();
const boots = new Map<number, { bootMs: number[]; setupMs: number[] }>();
const key = (size: number, scenario: Scenario, era: Era) => `${size}|${scenario}|${era}`;

function recordBoot(size: number, bootMs: number, setupMs: number | undefined): void {
  const entry = boots.get(size) ?? { bootMs: [], setupMs: [] };
  entry.bootMs.push(bootMs);
  if (setupMs !== undefined) entry.setupMs.push(setupMs);
  boots.set(size, entry);
}

async function measureSize(size: number, round: number, modern: { requests?: EraRequests }) {
  const server = await startServer(spec(size));
  try {
    recordBoot(size, server.ready.bootMs, server.ready.setupMs);
    console.log(
      `\n[round ${round}] ${server.spec.label}: ready in ${int(server.ready.bootMs)} ms ` +
        `(app setup ${int(server.ready.setupMs ?? NaN)} ms)`,
    );
    modern.requests ??= await capture2026(server.url, size);
    const legacy = requests2025(await initialize2025(server.url, server.spec.label));
    const settings = {
      warmupS: WARMUP_S,
      durationS: DURATION_S,
      connections: CONNECTIONS,
      toolCount: size,
    };
    for (const scenario of SCENARIOS) {
      for (const era of ERAS) {
        const request = (era === '2025' ? legacy : modern.requests)[scenario];
        const run = await runCell(server, round, scenario, era, request, settings);
        runs.set(key(size, scenario, era), [...(runs.get(key(size, scenario, era)) ?? []), run]);
      }
    }
  } finally {
    await server.stop();
  }
}

function report(): void {
  const base = SIZES[0];
  const cell = (size: number, scenario: Scenario, era: Era) => {
    const found = runs.get(key(size, scenario, era)) ?? [];
    return {
      rps: mean(found.map((run) => run.load.rps)),
      cpu: cpuPerAnswer(found),
      p50: mean(found.map((run) => run.load.p50)),
      bytes: found[0]?.bodyBytes ?? NaN,
    };
  };
  console.log(
    `\n=== Results: mean of ${ROUNDS} round(s) of ${DURATION_S} s per cell, ${CONNECTIONS} ` +
      `connections; ratios are to the ${int(base)}-tool case`,
  );

  const setups = SIZES.map((size) => median(boots.get(size)!.setupMs));
  const bootRows = SIZES.map((size, index) => {
    const b = boots.get(size)!;
    const boot = median(b.bootMs);
    const baseBoot = median(boots.get(base)!.bootMs);
    const perTool =
      index === 0
        ? '—'
        : `${fixed((setups[index] - setups[index - 1]) / (size - SIZES[index - 1]), 3)} ms`;
    return [
      int(size),
      `${int(boot)} ms`,
      ratio(boot / baseBoot),
      `${int(setups[index])} ms`,
      ratio(setups[index] / setups[0]),
      perTool,
      String(b.bootMs.length),
    ];
  });
  console.log(
    `\nbootstrap (median; boot = process start → listening, setup = after static imports → listening)`,
  );
  console.log(
    table(
      [
        'tools',
        'boot',
        '× base',
        'app setup',
        '× base',
        'setup per tool added since the last size',
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
        ];
        if (scenario === 'list') {
          row.push(kib(c.bytes), ratio(c.bytes / b.bytes), fixed((c.cpu / c.bytes) * 1000, 2));
        }
        return row;
      });
      const header = ['tools', 'req/s', '× base', 'p50', 'CPU µs/req', '× base'];
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
  if (SIZES.length >= 3) {
    const slopes = setups
      .slice(1)
      .map((setup, i) => (setup - setups[i]) / (SIZES[i + 1] - SIZES[i]));
    const linear = slopes.every((slope) => slope <= Math.max(slopes[0], 0.01) * 1.5);
    line(
      linear,
      `bootstrap grows linearly: app setup per added tool ${slopes.map((s) => `${fixed(s, 3)} ms`).join(' then ')} ` +
        `(goal: the later steps cost no more per tool, within 1.5×)`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`bench:scale — ${await machineLine()}`);
  console.log(
    `toolwright (Express) with ${SIZES.map(int).join(', ')} tools; ${ROUNDS} round(s), interleaved; ` +
      `warm-up ${WARMUP_S} s + ${DURATION_S} s per cell, ${CONNECTIONS} connections; ` +
      `${BOOTS} extra boot samples per size`,
  );
  const started = Date.now();
  const modern: { requests?: EraRequests } = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const size of SIZES) await measureSize(size, round, modern);
  }
  for (let boot = 0; boot < BOOTS; boot++) {
    for (const size of SIZES) {
      const server = await startServer(spec(size));
      recordBoot(size, server.ready.bootMs, server.ready.setupMs);
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
