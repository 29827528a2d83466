/**
 * `npm run bench:profile`: where a toolwright server spends its CPU under `tools/call` load.
 * Starts the server under `node --cpu-prof`, validates, warms up, loads it with the 2025-era and
 * then the 2026-era `tools/call echo` (as bench:http does), stops it, and prints the functions
 * with the most self time and the self time per package, counting only the samples taken during
 * the measured load (not boot, validation or warm-up). The profile stays in bench/profiles/
 * (open it in Chrome DevTools or VS Code).
 *
 * Environment: BENCH_PROFILE_TARGET (toolwright-express; any bench:http target id: a `-auth`
 * one runs the issuer and sends its token, as bench:http does; an `-otel` one registers the
 * OpenTelemetry SDK, and must have exported every measured answer's spans, as in bench:http),
 * BENCH_PROFILE_SCENARIO (call, list, or, on a toolwright target, resources, prompts or read: the
 * cells of bench:http), BENCH_PROFILE_S (5 s per era), BENCH_WARMUP_S (1.5),
 * BENCH_PROFILE_TOP (30), BENCH_CONNECTIONS (10), TOOLS (51: the tools the server registers).
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BENCH_DIR, REPO_DIR } from '../shared/paths.js';
import { toolCountFromEnv } from '../shared/tools.js';
import { ALL_SCENARIOS, ERAS, measures, SCENARIO_LABEL } from './cells.js';
import { envNumber, fixed, int, machineLine, table } from './format.js';
import { assertCleanLoad, measure, warmUp } from './load.js';
import {
  BenchFailure,
  capture2026,
  initialize2025,
  requests2025,
  validateOnce,
  type Scenario,
} from './mcp.js';
import { authEnv, eraWithBearer, startIssuer } from './issuer.js';
import { startServer } from './server-process.js';
import { ALL_TARGETS } from './targets.js';
import { watchTelemetry } from './telemetry.js';

const SECONDS = envNumber('BENCH_PROFILE_S', 5, 0.5);
const WARMUP_S = envNumber('BENCH_WARMUP_S', 1.5);
const TOP = Math.round(envNumber('BENCH_PROFILE_TOP', 30, 1));
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1));
const TARGET = process.env.BENCH_PROFILE_TARGET ?? 'toolwright-express';
const SCENARIO = (process.env.BENCH_PROFILE_SCENARIO ?? 'call') as Scenario;
/** The server reads TOOLS too (it inherits the environment). */
const TOOLS = toolCountFromEnv();

interface CpuProfile {
  startTime: number;
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** Where a script URL belongs: the library's build, a package, node itself, or the bench. */
function ownerOf(url: string): string {
  if (url === '') return '(native / VM)';
  if (url.startsWith('node:')) return 'node (core)';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const rest = path.slice(inModules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (path.startsWith(join(REPO_DIR, 'dist'))) return 'toolwright (dist)';
  return relative(REPO_DIR, path);
}

function shortLocation(url: string, line: number): string {
  if (url === '') return '';
  if (!url.startsWith('file://') && !url.startsWith('/')) return `${url}:${line + 1}`;
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const inModules = path.lastIndexOf('/node_modules/');
  const short =
    inModules >= 0 ? path.slice(inModules + '/node_modules/'.length) : relative(REPO_DIR, path);
  return `${short}:${line + 1}`;
}

/** Monotonic microseconds: the clock V8's profiler stamps samples with (CLOCK_MONOTONIC). */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time per profile node, counting only the samples inside `windows` (the measured load,
 * not boot or warm-up); all samples when none fall inside (a clock mismatch), with a warning.
 */
function selfTimes(profile: CpuProfile, windows: ReadonlyArray<[number, number]>) {
  const all = new Map<number, number>();
  const inside = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const id = profile.samples[i];
    all.set(id, (all.get(id) ?? 0) + delta);
    if (windows.some(([from, to]) => at >= from && at <= to)) {
      inside.set(id, (inside.get(id) ?? 0) + delta);
    }
  }
  if (inside.size > 0) return inside;
  console.warn('(no sample fell inside the measured windows: showing the whole profile)');
  return all;
}

function analyse(file: string, windows: ReadonlyArray<[number, number]>): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = selfTimes(profile, windows);
  const functions = new Map<string, { name: string; where: string; owner: string; us: number }>();
  const owners = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const name = functionName || '(anonymous)';
    const owner = functionName.startsWith('(') ? functionName : ownerOf(url);
    const key = `${name}|${url}|${lineNumber}`;
    const entry = functions.get(key) ?? {
      name,
      where: shortLocation(url, lineNumber),
      owner,
      us: 0,
    };
    entry.us += us;
    functions.set(key, entry);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  const pct = (us: number) => `${fixed((us / busy) * 100, 1)}%`;
  console.log(
    `\nprofile ${relative(BENCH_DIR, file)}, measured windows only: ${fixed(busy / 1e6, 2)} s busy, ` +
      `${fixed(idle / 1e6, 2)} s idle (percentages are of busy time)`,
  );
  console.log(`\ntop ${TOP} functions by self time`);
  console.log(
    table(
      ['function', 'self', 'share', 'package', 'location'],
      [...functions.values()]
        .sort((a, b) => b.us - a.us)
        .slice(0, TOP)
        .map((f) => [f.name, `${int(f.us / 1000)} ms`, pct(f.us), f.owner, f.where]),
    ),
  );
  // Inclusive time of the library's own functions: each stack counted once per function.
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, { name: string; where: string; us: number }>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at)!.callFrame;
      if (ownerOf(url) !== 'toolwright (dist)') continue;
      const key = `${functionName}|${url}|${lineNumber}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key) ?? {
        name: functionName || '(anonymous)',
        where: shortLocation(url, lineNumber),
        us: 0,
      };
      entry.us += us;
      inclusive.set(key, entry);
    }
  }
  if (inclusive.size > 0) {
    console.log(`\ntoolwright's own functions by total time (self and everything they call)`);
    console.log(
      table(
        ['function', 'total', 'share', 'location'],
        [...inclusive.values()]
          .sort((a, b) => b.us - a.us)
          .slice(0, 20)
          .map((f) => [f.name, `${int(f.us / 1000)} ms`, pct(f.us), f.where]),
      ),
    );
  }
  console.log('\nself time by package');
  console.log(
    table(
      ['package', 'self', 'share'],
      [...owners.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([owner, us]) => [owner, `${int(us / 1000)} ms`, pct(us)]),
    ),
  );
}

async function main(): Promise<void> {
  const spec = ALL_TARGETS.find((target) => target.id === TARGET);
  if (!spec) throw new Error(`BENCH_PROFILE_TARGET: unknown target "${TARGET}"`);
  if (!measures(spec.scenarios, SCENARIO)) {
    throw new Error(
      `BENCH_PROFILE_SCENARIO must be one of ${ALL_SCENARIOS.filter((s) => measures(spec.scenarios, s)).join(', ')} ` +
        `for ${spec.id}, got "${String(SCENARIO)}"`,
    );
  }
  const dir = join(BENCH_DIR, 'profiles');
  mkdirSync(dir, { recursive: true });
  const before = new Set(readdirSync(dir));
  console.log(`bench:profile — ${await machineLine()}`);
  console.log(
    `${spec.label} with ${TOOLS} tools under node --cpu-prof: ` +
      `${SCENARIO_LABEL[SCENARIO]}, ` +
      `${WARMUP_S} s warm-up + ${SECONDS} s per era, ${CONNECTIONS} connections`,
  );
  const windows: Array<[number, number]> = [];
  const issuer = spec.auth ? await startIssuer() : undefined;
  const bearer: Record<string, string> = issuer ? { authorization: issuer.authorization } : {};
  const server = await startServer(
    issuer ? { ...spec, env: { ...spec.env, ...authEnv(issuer) } } : spec,
    { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`] },
  ).catch(async (error: unknown) => {
    await issuer?.close();
    throw error;
  });
  try {
    let modern = await capture2026(server.url, TOOLS, bearer);
    let legacy = requests2025(await initialize2025(server.url, spec.label, bearer));
    if (issuer) {
      modern = eraWithBearer(modern, issuer);
      legacy = eraWithBearer(legacy, issuer);
    }
    const telemetry = spec.telemetry ? await watchTelemetry(server) : undefined;
    for (const era of ERAS) {
      const request = (era === '2025' ? legacy : modern)[SCENARIO];
      if (!request) {
        throw new BenchFailure(`${spec.label}: no ${era} request for ${SCENARIO_LABEL[SCENARIO]}`);
      }
      const what = `${spec.label} ${SCENARIO} ${era}`;
      const first = await validateOnce(server.url, request, SCENARIO, TOOLS, what);
      const options = { connections: CONNECTIONS, request, expectBody: first.body };
      await warmUp(server, { ...options, seconds: WARMUP_S });
      const from = nowUs();
      const load = await measure(server, { ...options, seconds: SECONDS });
      windows.push([from, nowUs()]);
      assertCleanLoad(load, what);
      await validateOnce(server.url, request, SCENARIO, TOOLS, what);
      console.log(
        `  ${era}: ${int(load.rps)} req/s, ${fixed(load.cpuUsPerRequest, 0)} µs CPU/req ` +
          `(under the profiler, which slows the server)`,
      );
      await telemetry?.(SCENARIO, era, load.requests);
    }
  } finally {
    // The profile is written at exit: wait out a graceful close that takes its whole grace period.
    await server.stop({ killAfterMs: 30_000 });
    await issuer?.close();
  }
  const written = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile') && !before.has(name))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (written.length === 0) throw new BenchFailure(`no .cpuprofile was written to ${dir}`);
  analyse(written[0], windows);
}

try {
  await main();
} catch (error) {
  console.error(
    `\nbench:profile FAILED: ${error instanceof BenchFailure ? error.message : (error as Error).stack}`,
  );
  process.exitCode = 1;
}
