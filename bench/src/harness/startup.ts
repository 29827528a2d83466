/**
 * `npm run bench:startup`: what starting costs, beside a floor measured in the same run.
 *
 * - Boot: process start → listening (`process.uptime()` at the ready line) of the bench:http
 *   toolwright server (51 tools, its resources and prompts) against its adapter's floor (the same
 *   Nest app and adapter, no MCP SDK), BENCH_BOOTS starts each, in alternating order.
 * - Memory: peak RSS (`VmHWM`) of the same two servers registering BENCH_MEMORY_TOOLS (1,000)
 *   tools, after serving `tools/list` and then `tools/call echo` for BENCH_DURATION_S each (2025
 *   era), every answer checked; one start each per round, BENCH_ROUNDS rounds, alternating order.
 * - Command line: the sample's CLI (`dist-sample/cli.js`, compiled once by this harness with
 *   `tsconfig.sample.json`), `list` and `call helpdesk_get_ticket`, from spawning `node` to its
 *   exit with the answer on stdout, against the floor (`cli/floor.ts`: a Nest standalone
 *   application context that resolves one provider and prints its answer); BENCH_CLI_RUNS runs
 *   of each, in rotating order, after one unmeasured run of each.
 *
 * Every process runs on core 0 when the servers are pinned (see server-process.ts). Each figure
 * is the median over its samples; a ratio is given as the ratio of the medians and as the median
 * of the ratios of samples taken side by side. It prints verdicts, and fails only when a process
 * fails or answers wrongly.
 *
 * Environment: BENCH_BOOTS (10), BENCH_ROUNDS (5), BENCH_MEMORY_TOOLS (1000), BENCH_DURATION_S
 * (2), BENCH_CLI_RUNS (10), BENCH_SCALE_ADAPTERS (express,fastify), BENCH_STARTUP_PARTS
 * (boot,memory,cli).
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { envNumber, fixed, machineLine, median, mib, ms, ratio, table } from './format.js';
import { assertCleanLoad, measure } from './load.js';
import { BenchFailure, initialize2025, requests2025, validateOnce } from './mcp.js';
import { PINNED, startServer, type RunningServer, type ServerSpec } from './server-process.js';
import { ALL_TARGETS } from './targets.js';
import { BUILD_DIR, REPO_DIR } from '../shared/paths.js';

const BOOTS = Math.round(envNumber('BENCH_BOOTS', 10, 1));
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 5, 1));
const MEMORY_TOOLS = Math.round(envNumber('BENCH_MEMORY_TOOLS', 1000, 2));
const LOAD_S = envNumber('BENCH_DURATION_S', 2, 0.5);
const CLI_RUNS = Math.round(envNumber('BENCH_CLI_RUNS', 10, 1));
const ADAPTERS = (process.env.BENCH_SCALE_ADAPTERS ?? 'express,fastify').split(',');
const PARTS = new Set((process.env.BENCH_STARTUP_PARTS ?? 'boot,memory,cli').split(','));

/** The goals of issue 35 this harness gives verdicts on: a server's boot against its floor's. */
const BOOT_GOAL = 1.5;
/**
 * The command line's: a CLI answer is a boot and one call, so it gets the boot's goal against the
 * start of a Nest standalone context.
 */
const CLI_GOAL = 1.5;

/** The toolwright server of bench:http on `adapter` and its floor. */
function pair(adapter: string): [ServerSpec, ServerSpec] {
  const find = (id: string) => {
    const target = ALL_TARGETS.find((candidate) => candidate.id === id);
    if (!target) throw new BenchFailure(`no bench target ${id}`);
    return target;
  };
  return [find(`toolwright-${adapter}`), find(`floor-${adapter}`)];
}

/**
 * `samples` figures of each of two servers, each taken by `take` from a fresh process that is
 * stopped after, in alternating order (`toolwright` first on even samples).
 */
async function sideBySide(
  toolwright: ServerSpec,
  floor: ServerSpec,
  samples: number,
  take: (server: RunningServer) => number | Promise<number>,
): Promise<[own: number[], base: number[]]> {
  const own: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < samples; i++) {
    for (const spec of i % 2 === 0 ? [toolwright, floor] : [floor, toolwright]) {
      const server = await startServer(spec);
      try {
        (spec === toolwright ? own : base).push(await take(server));
      } finally {
        await server.stop();
      }
    }
  }
  return [own, base];
}

/** The ratio of the medians and the median of the samples' own ratios, with a verdict. */
function ratios(
  own: readonly number[],
  floor: readonly number[],
  goal?: number,
): { medians: number; paired: number; verdict: string } {
  const medians = median(own) / median(floor);
  const paired = median(own.map((value, i) => value / floor[i]));
  const verdict =
    goal === undefined
      ? '—'
      : medians <= goal && paired <= goal
        ? `holds (≤ ${goal.toFixed(2)}×)`
        : `ABOVE (goal ≤ ${goal.toFixed(2)}×)`;
  return { medians, paired, verdict };
}

async function boot(): Promise<void> {
  console.log(`\nboot: process start → listening, ${BOOTS} starts of each, alternating`);
  const rows: string[][] = [];
  for (const adapter of ADAPTERS) {
    const [toolwright, floor] = pair(adapter);
    const [own, base] = await sideBySide(toolwright, floor, BOOTS, (server) => server.ready.bootMs);
    const { medians, paired, verdict } = ratios(own, base, BOOT_GOAL);
    rows.push([adapter, ms(median(own)), ms(median(base)), ratio(medians), ratio(paired), verdict]);
  }
  console.log(
    table(
      ['adapter', 'toolwright', 'floor', 'ratio of medians', 'median ratio', 'boot goal'],
      rows,
    ),
  );
}

async function memory(): Promise<void> {
  console.log(
    `\nmemory: peak RSS with ${MEMORY_TOOLS.toLocaleString('en-US')} tools after ${LOAD_S} s of tools/list and ${LOAD_S} s of tools/call echo (2025), ${ROUNDS} rounds`,
  );
  const rows: string[][] = [];
  for (const adapter of ADAPTERS) {
    const [toolwright, floor] = pair(adapter).map((spec): ServerSpec => ({
      ...spec,
      env: { ...spec.env, TOOLS: String(MEMORY_TOOLS) },
    }));
    const [own, base] = await sideBySide(toolwright, floor, ROUNDS, async (server) => {
      const version = await initialize2025(server.url, server.spec.label);
      const requests = requests2025(version);
      for (const scenario of ['list', 'call'] as const) {
        const request = requests[scenario];
        await validateOnce(server.url, request, scenario, MEMORY_TOOLS, server.spec.label);
        const load = await measure(server, { connections: 10, seconds: LOAD_S, request });
        assertCleanLoad(load, `${server.spec.label} ${scenario}`);
      }
      return server.peakRss();
    });
    const { medians, paired } = ratios(own, base);
    rows.push([adapter, mib(median(own)), mib(median(base)), ratio(medians), ratio(paired)]);
  }
  console.log(table(['adapter', 'toolwright', 'floor', 'ratio of medians', 'median ratio'], rows));
}

/** Runs `node <args>` (on core 0 when pinned) and resolves with its wall time and stdout. */
function timed(args: readonly string[]): Promise<{ ms: number; stdout: string }> {
  const command = [process.execPath, ...args];
  const [file, ...rest] = PINNED ? ['taskset', '-c', '0', ...command] : command;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(file, rest, {
      cwd: REPO_DIR,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) {
        reject(new BenchFailure(`node ${args.join(' ')} exited with ${code}:\n${stderr}`));
      } else resolve({ ms: elapsed, stdout });
    });
  });
}

async function cli(): Promise<void> {
  console.log('\ncommand line: compiling the sample once (tsconfig.sample.json)');
  execFileSync(join(REPO_DIR, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.sample.json'], {
    cwd: REPO_DIR,
    stdio: 'inherit',
  });
  const sampleCli = join(REPO_DIR, 'dist-sample', 'cli.js');
  const commands = [
    { name: 'floor', args: [join(BUILD_DIR, 'cli', 'floor.js'), 'T-1001'], expect: '"T-1001"' },
    { name: 'list', args: [sampleCli, 'list'], expect: 'helpdesk_get_ticket' },
    {
      name: 'call',
      args: [sampleCli, 'call', 'helpdesk_get_ticket', '--args', '{"id":"T-1001"}'],
      expect: 'T-1001',
    },
  ];
  const times = new Map<string, number[]>(commands.map(({ name }) => [name, []]));
  const run = async (command: (typeof commands)[number], keep: boolean) => {
    const { ms: elapsed, stdout } = await timed(command.args);
    if (!stdout.includes(command.expect)) {
      throw new BenchFailure(`${command.name}: no "${command.expect}" in its answer:\n${stdout}`);
    }
    if (keep) times.get(command.name)!.push(elapsed);
  };
  for (const command of commands) await run(command, false);
  console.log(`command line: ${CLI_RUNS} runs of each, rotating order, node start → exit`);
  for (let i = 0; i < CLI_RUNS; i++) {
    for (let j = 0; j < commands.length; j++) {
      await run(commands[(i + j) % commands.length], true);
    }
  }
  const floor = times.get('floor')!;
  const rows = commands.map(({ name }) => {
    const own = times.get(name)!;
    const { medians, paired, verdict } = ratios(
      own,
      floor,
      name === 'floor' ? undefined : CLI_GOAL,
    );
    return [
      name,
      ms(median(own)),
      `${fixed(median(own) - median(floor), 0)} ms`,
      ratio(medians),
      ratio(paired),
      verdict,
    ];
  });
  console.log(
    table(
      ['command', 'median', 'above the floor', 'ratio of medians', 'median ratio', 'goal'],
      rows,
    ),
  );
}

async function main(): Promise<void> {
  console.log(`bench:startup — ${await machineLine()}`);
  if (PARTS.has('boot')) await boot();
  if (PARTS.has('memory')) await memory();
  if (PARTS.has('cli')) await cli();
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchFailure ? error.message : error);
  process.exitCode = 1;
});
