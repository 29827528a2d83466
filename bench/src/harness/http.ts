/**
 * `npm run bench:http`: toolwright on Express and on Fastify, `@rekog/mcp-nest` 2.0.5, the
 * raw SDK rebuilt per request and `fastmcp` 4.20.16 (2025 era only: its 2026 cells are not
 * applicable), each serving the same 51 tools as a child process on loopback
 * with NODE_ENV=production. Each of BENCH_ROUNDS rounds starts every target (a fresh process per
 * round) and measures four tools cells — `tools/call echo` then `tools/list`, each on the 2025 era
 * (stateless POSTs after one real `initialize`) and the 2026-07-28 era (the request the real
 * client sends, captured once) — each cell on every target in turn (A B C D, then A B C D for the
 * next cell; the order rotates every round), at BENCH_CONNECTIONS connections: BENCH_WARMUP_S of
 * load, then BENCH_DURATION_S measured. The servers not being measured are idle.
 *
 * Before and after every cell an answer is parsed and checked (the echoed text, or all 51 tools);
 * when two answers are byte-identical, autocannon also compares every answer under load with
 * that body. Any non-2xx, error, timeout or mismatch fails the run (exit 1): error pages are
 * never measured. The machine goes through slower periods, in which one server can measure up to
 * a third slower than a minute earlier: interleaving cells makes such a period fall on every
 * target alike, and each figure is the median over the rounds, which one slow round does not
 * move. Verdicts against the issue's targets are printed, but never fail the run.
 *
 * Environment: BENCH_WARMUP_S (1.5), BENCH_FIRST_WARMUP_S (8, the first cell after a server
 * starts, which also warms what every cell shares: both Nest servers keep getting faster for
 * several seconds of load after they start; and a toolwright server's first resources or prompts
 * cell, the first to run the SDK path), BENCH_DURATION_S (4), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (10), BENCH_TARGETS (comma-separated ids: toolwright-express,
 * toolwright-fastify, rekog, sdk, fastmcp by default; toolwright-express-auth,
 * toolwright-fastify-auth, toolwright-express-otel and toolwright-fastify-otel only when named),
 * BENCH_SCENARIOS
 * (comma-separated: call, list, resources, prompts, read; every one by default, each measured on
 * the targets that serve it), BENCH_NODE_OPTIONS (node flags for the servers).
 *
 * The `-auth` targets are the same toolwright servers with `mcp.auth` on, measured on the
 * `tools/call echo` cells only: the harness runs a small issuer (`issuer.ts`), every request
 * (the checks, the load, the 2025 `initialize`) carries its RS256 token, and before its cells
 * each such server must refuse a request without a token and one with a forged token. The
 * report compares their CPU per answer with the same server's without sign-in, measured in the
 * same rounds (goal: at most 1.15×).
 *
 * The toolwright targets also declare 10 resources, 5 resource templates and 10 prompts
 * (`shared/operations.ts`) and are measured on three more cells, each on both eras:
 * `resources/list`, `prompts/list` and `resources/read` of one static resource (answered through
 * the MCP SDK, where `tools/list` and `tools/call` take the endpoint's direct path). The report
 * gives each one's CPU per answer over the same server's `tools/list` and `tools/call echo`, same
 * era, same rounds (goal: the lists at most `tools/list`'s, the read at most `tools/call`'s).
 *
 * The `-otel` targets (toolwright-express-otel, toolwright-fastify-otel, only when named) are the
 * same toolwright servers with an OpenTelemetry SDK registered (`TELEMETRY=memory`: in-memory
 * exporters, see `shared/otel.ts`), measured on every cell. After it starts and after each of its
 * cells, the harness asks such a server what its SDK exported (`telemetry.ts`): every measured
 * answer must have had its spans and histogram records. The report compares their CPU per answer
 * with the same server's without the SDK, measured in the same rounds.
 *
 * The floor targets (floor-express, floor-fastify, only when named; `servers/floor.ts`) are the
 * same Nest app and adapter answering `tools/call echo` and `tools/list` with the same bytes and
 * no MCP SDK; the report gives each toolwright server's CPU per answer over its adapter's floor,
 * with each round's own ratio; the run ends with the verdicts against issue 35's goals. The servers of
 * one adapter (toolwright with its variants, and the floors) are measured one right after the
 * other in every cell, so that a round's ratio between them compares figures seconds apart.
 * Every run ends by writing its results as JSON (`bench/results/http.json`) and the chart drawn
 * from it (`docs/images/bench-http.svg`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { BENCH_DIR, REPO_DIR } from '../shared/paths.js';
import { DEFAULT_TOOL_COUNT } from '../shared/tools.js';
import { renderChart, type HttpResults, type ResultCell } from './chart.js';
import {
  envNumber,
  fixed,
  int,
  kib,
  machineLine,
  median,
  mib,
  ms,
  ratio,
  table,
} from './format.js';
import {
  ALL_SCENARIOS,
  cellMedians,
  ERAS,
  measures,
  OPERATION_SCENARIOS,
  otherCores,
  runRound,
  SCENARIO_LABEL,
  SCENARIOS,
  type CellRun,
  type CellSettings,
  type CellTarget,
} from './cells.js';
import {
  BenchFailure,
  capture2026,
  initialize2025,
  requests2025,
  speaks2026,
  type Era,
  type EraRequests,
  type OperationScenario,
  type Scenario,
  type ToolScenario,
} from './mcp.js';
import { PROMPT_COUNT, RESOURCE_COUNT, TEMPLATE_COUNT } from '../shared/operations.js';
import { CLK_TCK, startServer, type ServerSpec } from './server-process.js';
import { assertSignsIn, authEnv, eraWithBearer, startIssuer, type Issuer } from './issuer.js';
import { ALL_TARGETS, type BenchTarget } from './targets.js';
import { watchTelemetry } from './telemetry.js';

const WARMUP_S = envNumber('BENCH_WARMUP_S', 1.5);
const FIRST_WARMUP_S = envNumber('BENCH_FIRST_WARMUP_S', 8);
const DURATION_S = envNumber('BENCH_DURATION_S', 4, 0.5);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 3, 1));
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1));
const TOOLS = DEFAULT_TOOL_COUNT;

const BASELINE = 'rekog';
/** Where each run's results go: the JSON, and the chart drawn from it. */
const RESULTS_JSON = join(BENCH_DIR, 'results', 'http.json');
const RESULTS_SVG = join(REPO_DIR, 'docs', 'images', 'bench-http.svg');
/** The most CPU per answer sign-in may cost, as a multiple of the same call without it (issue 35). */
const AUTH_GOAL = 1.15;
/** The most CPU per answer an OpenTelemetry SDK may cost, as a multiple of the same cell without one. */
const OTEL_GOAL = 1.25;
/** The most CPU per answer a 2026-era `tools/call` may cost over the same server's 2025-era one. */
const ERA_GOAL = 1.1;
/** The most CPU per answer `resources/read` may cost over the same server's `tools/call echo`. */
const READ_GOAL = 1.05;
/** The tools cell each resources or prompts cell should cost no more CPU per answer than. */
const OPERATION_GOAL: Record<OperationScenario, ToolScenario> = {
  resources: 'list',
  prompts: 'list',
  read: 'call',
};

function selectedScenarios(): readonly Scenario[] {
  const raw = process.env.BENCH_SCENARIOS;
  if (!raw) return ALL_SCENARIOS;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !ALL_SCENARIOS.includes(name as Scenario));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_SCENARIOS: unknown ${unknown.join(', ')}; use ${ALL_SCENARIOS.join(', ')}`,
    );
  }
  return ALL_SCENARIOS.filter((scenario) => names.includes(scenario));
}

const SELECTED_SCENARIOS = selectedScenarios();

/** The scenarios measured on `target`: those it serves that BENCH_SCENARIOS selects. */
const scenariosOf = (target: BenchTarget) =>
  SELECTED_SCENARIOS.filter((scenario) => measures(target.scenarios, scenario));

const measuresOn = (target: BenchTarget, scenario: Scenario) =>
  scenariosOf(target).includes(scenario);

function selectedTargets(): BenchTarget[] {
  const raw = process.env.BENCH_TARGETS;
  if (!raw) return ALL_TARGETS.filter((target) => !target.optIn);
  const ids = raw.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !ALL_TARGETS.some((target) => target.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_TARGETS: unknown ${unknown.join(', ')}; use ${ALL_TARGETS.map((t) => t.id).join(', ')}`,
    );
  }
  return ALL_TARGETS.filter((target) => ids.includes(target.id));
}

const cellKey = (target: string, scenario: Scenario, era: Era) => `${target}|${scenario}|${era}`;
const runs = new Map<string, CellRun[]>();
/** Targets that refused the 2026-07-28 revision. */
const no2026 = new Set<string>();
const negotiated = new Map<string, string>();
const bootMs = new Map<string, number[]>();

const SETTINGS: CellSettings = {
  warmupS: WARMUP_S,
  firstWarmupS: FIRST_WARMUP_S,
  durationS: DURATION_S,
  connections: CONNECTIONS,
  toolCount: TOOLS,
};

/**
 * The 2026-07-28 client's requests, captured against the first target of the run (the first
 * that does not declare the 2025 era only, `BenchTarget.eras`), and again
 * against the first target that declares resources and prompts when that one did not (the
 * tools' requests already captured are kept).
 */
async function captureModern(
  url: string,
  target: BenchTarget,
  modern: { requests?: EraRequests },
  bearer: Readonly<Record<string, string>>,
): Promise<void> {
  const wanted = scenariosOf(target);
  if (modern.requests && wanted.every((scenario) => modern.requests?.[scenario])) return;
  const captured = await capture2026(url, TOOLS, bearer);
  const fresh = ALL_SCENARIOS.filter(
    (scenario) => captured[scenario] && !modern.requests?.[scenario],
  );
  modern.requests = { ...captured, ...modern.requests };
  console.log(`  captured the 2026-07-28 client's requests against ${target.label}:`);
  for (const scenario of fresh) {
    const { headers, body } = captured[scenario]!;
    console.log(`    ${SCENARIO_LABEL[scenario]} headers ${JSON.stringify(headers)}`);
    console.log(`    ${SCENARIO_LABEL[scenario]} body    ${body}`);
  }
  const missing = wanted.filter((scenario) => !modern.requests?.[scenario]);
  if (missing.length > 0) {
    throw new BenchFailure(
      `${target.label} declares no resources or prompts: no 2026 request for ` +
        missing.map((scenario) => SCENARIO_LABEL[scenario]).join(', '),
    );
  }
}

/**
 * Starts a target for a round: its first 2025 session, and whether it speaks 2026-07-28. A
 * target that signs callers in gets the issuer's token on every request, and must refuse a
 * request without it first.
 */
async function startTarget(
  target: BenchTarget,
  round: number,
  modern: { requests?: EraRequests },
  issuer: Issuer | undefined,
): Promise<CellTarget> {
  const auth = target.auth ? issuer : undefined;
  if (target.auth && !auth) throw new Error(`${target.id} needs the issuer`);
  const spec: ServerSpec = auth ? { ...target, env: { ...target.env, ...authEnv(auth) } } : target;
  const bearer: Record<string, string> = auth ? { authorization: auth.authorization } : {};
  const sign = (requests: EraRequests) => (auth ? eraWithBearer(requests, auth) : requests);
  const server = await startServer(spec);
  try {
    bootMs.set(spec.id, [...(bootMs.get(spec.id) ?? []), server.ready.bootMs]);
    console.log(
      `[round ${round}] ${spec.label}: pid ${server.pid}, ready in ${int(server.ready.bootMs)} ms`,
    );
    // A server declared 2025-only is never the one the 2026 client's requests are captured from.
    const declares2026 = target.eras?.includes('2026') ?? true;
    if (declares2026) await captureModern(server.url, target, modern, bearer);
    const version = await initialize2025(server.url, spec.label, bearer);
    negotiated.set(spec.id, version);
    if (auth) {
      await assertSignsIn(server.url, requests2025(version).call, auth, spec.label);
    }
    // Probed even when declared 2025-only (when another target's capture gave the requests): a
    // server that answers 2026-07-28 after all must be measured on it, not left out.
    const modernOk =
      modern.requests !== undefined &&
      (await speaks2026(server.url, sign(modern.requests).list, `${spec.label} 2026 probe`));
    if (modernOk && !declares2026) {
      throw new BenchFailure(
        `${spec.label} answered a 2026-07-28 request, yet its target declares the 2025 era ` +
          `only (targets.ts): declare both eras so that its 2026 cells are measured`,
      );
    }
    if (!modernOk) {
      no2026.add(spec.id);
      console.log(
        declares2026
          ? `  ${spec.label} does not speak 2026-07-28: its 2026 cells are skipped`
          : `  ${spec.label} speaks the 2025 revisions only (` +
              (modern.requests
                ? 'it refused the 2026-07-28 request'
                : 'not probed: no 2026 requests captured yet') +
              `): its 2026 cells are not applicable`,
      );
    }
    const requests = {
      '2025': sign(requests2025(version)),
      '2026': modernOk ? sign(modern.requests!) : undefined,
    };
    const telemetry = target.telemetry ? await watchTelemetry(server) : undefined;
    return {
      server,
      requests,
      settings: SETTINGS,
      scenarios: scenariosOf(target),
      // The toolwright servers of an adapter, with sign-in or telemetry or neither, and its
      // floors: each ratio between them compares cells measured one right after the other.
      group: target.env?.ADAPTER,
      ...(telemetry && {
        afterCell: (scenario: Scenario, era: Era, run: CellRun) =>
          telemetry(scenario, era, run.load.requests),
      }),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** A round: every target started, then each cell measured on all of them in turn. */
async function runTargets(
  targets: readonly BenchTarget[],
  round: number,
  modern: { requests?: EraRequests },
  issuer: Issuer | undefined,
): Promise<void> {
  console.log('');
  const started: CellTarget[] = [];
  try {
    for (const spec of targets) started.push(await startTarget(spec, round, modern, issuer));
    await runRound(started, round, (target, scenario, era, run) => {
      const key = cellKey(target.server.spec.id, scenario, era);
      runs.set(key, [...(runs.get(key) ?? []), run]);
    });
  } finally {
    await Promise.all(started.map((target) => target.server.stop()));
  }
  if (issuer) {
    const served = issuer.served();
    const starts = targets.filter((target) => target.auth).length * round;
    console.log(
      `  issuer: ${served.metadata} metadata and ${served.jwks} key set requests served so far, ` +
        `for ${starts} signed-in server starts` +
        (served.jwks > starts ? ': some servers fetched the keys again' : ''),
    );
  }
}

interface Summary {
  rps: number;
  rpsRange: [number, number];
  p50: number;
  p99: number;
  cpuUs: number;
  peakRss: number;
  bodyBytes: number;
  others: number;
}

function summarise(target: string, scenario: Scenario, era: Era): Summary | undefined {
  const cell = runs.get(cellKey(target, scenario, era));
  if (!cell || cell.length === 0) return undefined;
  const rps = cell.map((run) => run.load.rps);
  return {
    ...cellMedians(cell),
    rpsRange: [Math.min(...rps), Math.max(...rps)],
    peakRss: Math.max(...cell.map((run) => run.peakRss)),
    bodyBytes: cell[0].bodyBytes,
    others: otherCores(cell),
  };
}

function report(targets: readonly BenchTarget[]): void {
  const hasBaseline = targets.some((target) => target.id === BASELINE);
  console.log(
    `\n=== Results: median of ${ROUNDS} round(s) of ${DURATION_S} s per cell (one process each), ${CONNECTIONS} connections ` +
      `(req/s range over rounds in brackets; CPU = server user+system time per answer; ` +
      `peak RSS = VmHWM at the end of the cell; other cores = CPU other processes on the machine ` +
      `used meanwhile: when it is high, trust the CPU ratios over req/s)`,
  );
  for (const scenario of ALL_SCENARIOS) {
    for (const era of ERAS) {
      const base = hasBaseline ? summarise(BASELINE, scenario, era) : undefined;
      const measured = targets.filter((target) => measuresOn(target, scenario));
      if (measured.length === 0) continue;
      const floors = measured.some((target) => floorOf(targets, target, scenario));
      const rows = measured.map((target) => {
        if (era === '2026' && no2026.has(target.id)) {
          return [
            target.label,
            target.eras?.includes('2026') === false
              ? 'n/a: speaks the 2025 revisions only'
              : 'does not speak 2026-07-28: skipped',
            '',
            '',
            '',
            '',
            '',
            '',
            '',
            '',
            ...(floors ? [''] : []),
          ];
        }
        const s = summarise(target.id, scenario, era);
        if (!s) return [target.label, '—', '', '', '', '', '', '', '', '', ...(floors ? [''] : [])];
        const floor = floorOf(targets, target, scenario);
        const floorCell = floor && summarise(floor.id, scenario, era);
        return [
          target.label,
          `${int(s.rps)} [${int(s.rpsRange[0])}–${int(s.rpsRange[1])}]`,
          ms(s.p50),
          ms(s.p99),
          fixed(s.cpuUs, 0),
          mib(s.peakRss),
          kib(s.bodyBytes),
          base ? ratio(s.rps / base.rps) : '—',
          base ? ratio(s.cpuUs / base.cpuUs) : '—',
          ...(floors ? [floorCell ? ratio(s.cpuUs / floorCell.cpuUs) : '—'] : []),
          fixed(s.others, 2),
        ];
      });
      const version = era === '2026' ? '2026-07-28 envelope' : `2025 stateless`;
      const registered = OPERATION_SCENARIOS.includes(scenario as OperationScenario)
        ? `${RESOURCE_COUNT} resources, ${TEMPLATE_COUNT} templates and ${PROMPT_COUNT} prompts beside ${TOOLS} tools`
        : `${TOOLS} tools registered`;
      console.log(`\n${SCENARIO_LABEL[scenario]} — ${version} (${registered})`);
      console.log(
        table(
          [
            'target',
            'req/s',
            'p50',
            'p99',
            'CPU µs/req',
            'peak RSS',
            'answer',
            '× rekog req/s',
            '× rekog CPU/req',
            ...(floors ? ['× floor CPU/req'] : []),
            'other cores',
          ],
          rows,
        ),
      );
    }
  }
  console.log('');
  console.log(
    `2025-era versions negotiated at initialize: ${targets
      .map((target) => `${target.label} ${negotiated.get(target.id) ?? '?'}`)
      .join('; ')}`,
  );
  console.log(
    `Boot (process start → listening): ${targets
      .map((target) => `${target.label} ${int(median(bootMs.get(target.id) ?? [NaN]))} ms`)
      .join('; ')}`,
  );
  if (hasBaseline) verdicts(targets);
  floorRatios(targets);
  operationRatios(targets);
  authRatios(targets);
  telemetryRatios(targets);
  issue35Verdicts(targets);
}

/** The floor of `target`'s adapter (`servers/floor.ts`), when it runs and measures `scenario`. */
function floorOf(
  targets: readonly BenchTarget[],
  target: BenchTarget,
  scenario: Scenario,
): BenchTarget | undefined {
  const floor = targets.find((other) => other.id === target.floor);
  return floor && measuresOn(floor, scenario) && measuresOn(target, scenario) ? floor : undefined;
}

/**
 * The most CPU per answer each toolwright server may spend over its adapter's floor (issue 35),
 * per scenario, on both eras.
 */
const FLOOR_GOALS: Readonly<Record<string, Readonly<Record<ToolScenario, number>>>> = {
  'toolwright-express': { call: 1.1, list: 1.0 },
  'toolwright-fastify': { call: 1.3, list: 1.1 },
};

/**
 * Each toolwright server's CPU per answer over the floor of its adapter (Nest and the adapter
 * doing the same JSON-RPC work without an MCP SDK), per scenario and era, measured in the same
 * rounds, beside its ratio to `@rekog/mcp-nest` when that ran; then the verdicts against
 * {@link FLOOR_GOALS}. A goal holds when both the ratio of the medians and the median of the
 * rounds' own ratios are within it. Informational: the exit code ignores them.
 */
function floorRatios(targets: readonly BenchTarget[]): void {
  const pairs = targets.flatMap((target) =>
    SCENARIOS.flatMap((scenario) => {
      const floor = floorOf(targets, target, scenario);
      return floor ? [[target, floor, scenario] as const] : [];
    }),
  );
  if (pairs.length === 0) return;
  console.log(
    `\n=== toolwright/floor CPU per answer: each toolwright server over the floor of its ` +
      `adapter (the same Nest app and adapter answering the same JSON-RPC with no MCP SDK: Zod ` +
      `validation of echo's arguments, tools/list prepared at startup), same cell, same rounds ` +
      `(informational: the exit code ignores it)`,
  );
  for (const [target, floor, scenario] of pairs) {
    for (const era of ERAS) {
      const pair = `${target.label} / ${floor.label}, ${SCENARIO_LABEL[scenario]} ${era}`;
      const comparison = cpuComparison(target, floor, scenario, era);
      const mine = summarise(target.id, scenario, era);
      const rekog = summarise(BASELINE, scenario, era);
      const overRekog = mine && rekog ? `; × rekog CPU ${ratio(mine.cpuUs / rekog.cpuUs)}` : '';
      console.log(
        `  toolwright/floor CPU per answer, ${pair}: ` +
          (comparison ? `${comparison.text}${overRekog}` : 'not measured'),
      );
    }
  }
}

/** One cell of one target: what a goal compares. */
interface CellRef {
  readonly target: BenchTarget;
  readonly scenario: Scenario;
  readonly era: Era;
}

/**
 * Cell `a`'s CPU per answer over cell `b`'s: the ratio of the medians, each round's own ratio
 * and their median; `undefined` when either was not measured.
 */
function pairedCells(
  a: CellRef,
  b: CellRef,
): { ratio: number; rounds: number[]; paired: number } | undefined {
  const mine = summarise(a.target.id, a.scenario, a.era);
  const base = summarise(b.target.id, b.scenario, b.era);
  if (!mine || !base) return undefined;
  const others = runs.get(cellKey(b.target.id, b.scenario, b.era)) ?? [];
  const rounds = (runs.get(cellKey(a.target.id, a.scenario, a.era)) ?? []).flatMap((run) => {
    const other = others.find((candidate) => candidate.round === run.round);
    return other ? [run.load.cpuUsPerRequest / other.load.cpuUsPerRequest] : [];
  });
  return { ratio: mine.cpuUs / base.cpuUs, rounds, paired: median(rounds) };
}

/**
 * The verdicts against issue 35's goals, for every goal this run measured both sides of: a goal
 * holds when the ratio of the medians and the median of the rounds' own ratios are both within
 * it. Informational: the exit code ignores them.
 */
function issue35Verdicts(targets: readonly BenchTarget[]): void {
  const lines: string[] = [];
  const verdict = (what: string, a: CellRef, b: CellRef, goal: number) => {
    const compared = pairedCells(a, b);
    if (!compared) return;
    const holds = compared.ratio <= goal && compared.paired <= goal;
    lines.push(
      `  ${holds ? 'PASS ' : 'ABOVE'}  ${what}: ${ratio(compared.ratio)} (rounds' median ` +
        `${ratio(compared.paired)}), goal ≤ ${ratio(goal)}`,
    );
  };
  const byId = (id: string | undefined) => targets.find((target) => target.id === id);
  for (const target of targets.filter((one) => FLOOR_GOALS[one.id])) {
    const floor = byId(target.floor);
    for (const scenario of SCENARIOS) {
      for (const era of ERAS) {
        if (floor) {
          verdict(
            `${target.label} ${SCENARIO_LABEL[scenario]} ${era} / ${floor.label}`,
            { target, scenario, era },
            { target: floor, scenario, era },
            FLOOR_GOALS[target.id][scenario],
          );
        }
      }
    }
    verdict(
      `${target.label} tools/call echo 2026 / 2025`,
      { target, scenario: 'call', era: '2026' },
      { target, scenario: 'call', era: '2025' },
      ERA_GOAL,
    );
    for (const era of ERAS) {
      verdict(
        `${target.label} resources/read ${era} / tools/call echo ${era}`,
        { target, scenario: 'read', era },
        { target, scenario: 'call', era },
        READ_GOAL,
      );
    }
  }
  for (const [auth, plain] of variantPairs(targets, (target) => target.auth)) {
    for (const era of ERAS) {
      verdict(
        `${auth.label} signed in / without sign-in, tools/call echo ${era}`,
        { target: auth, scenario: 'call', era },
        { target: plain, scenario: 'call', era },
        AUTH_GOAL,
      );
    }
  }
  for (const [otel, plain] of variantPairs(targets, (target) => target.telemetry)) {
    for (const scenario of ALL_SCENARIOS) {
      for (const era of ERAS) {
        verdict(
          `${otel.label} with an OpenTelemetry SDK / without, ${SCENARIO_LABEL[scenario]} ${era}`,
          { target: otel, scenario, era },
          { target: plain, scenario, era },
          OTEL_GOAL,
        );
      }
    }
  }
  if (lines.length === 0) return;
  console.log(
    `\n=== Verdicts against issue 35 (informational): server CPU per answer; a goal holds when ` +
      `the ratio of the medians and the median of the rounds' own ratios are both within it`,
  );
  for (const line of lines) console.log(line);
}

/**
 * One cell's CPU per answer over another cell's of the same target and era, measured in the same
 * rounds: the ratio of the medians and each round's own ratio; `undefined` when either was not
 * measured.
 */
function scenarioRatio(
  target: BenchTarget,
  scenario: Scenario,
  base: Scenario,
  era: Era,
): { ratio: number; perRound: string[] } | undefined {
  const mine = summarise(target.id, scenario, era);
  const theirs = summarise(target.id, base, era);
  if (!mine || !theirs) return undefined;
  const perRound = (runs.get(cellKey(target.id, scenario, era)) ?? []).flatMap((run) => {
    const other = runs
      .get(cellKey(target.id, base, era))
      ?.find((candidate) => candidate.round === run.round);
    return other ? [ratio(run.load.cpuUsPerRequest / other.load.cpuUsPerRequest)] : [];
  });
  return { ratio: mine.cpuUs / theirs.cpuUs, perRound };
}

/**
 * What resources and prompts cost per answer on each toolwright server: each operation cell's
 * CPU per answer over the same server's `tools/list` and `tools/call echo`, same era, same
 * rounds, against the goal of no more than the tools cell it corresponds to.
 */
function operationRatios(targets: readonly BenchTarget[]): void {
  const serving = targets.filter((target) =>
    OPERATION_SCENARIOS.some((scenario) => measuresOn(target, scenario)),
  );
  if (serving.length === 0) return;
  console.log(
    `\n=== Resources and prompts: CPU per answer over the same server's tools/list and ` +
      `tools/call echo, same era, same rounds (goal: resources/list and prompts/list ≤ 1× ` +
      `tools/list, resources/read ≤ ${ratio(READ_GOAL)} tools/call; informational: the exit code ignores it)`,
  );
  for (const target of serving) {
    console.log(target.label);
    for (const scenario of OPERATION_SCENARIOS.filter((one) => measuresOn(target, one))) {
      for (const era of ERAS) {
        const label = `${SCENARIO_LABEL[scenario]} ${era}`;
        const goalCell = OPERATION_GOAL[scenario];
        const mine = summarise(target.id, scenario, era);
        const goal = scenarioRatio(target, scenario, goalCell, era);
        if (!mine || !goal) {
          console.log(`  n/a    ${label}: not measured, or ${SCENARIO_LABEL[goalCell]} was not`);
          continue;
        }
        const bases = [goalCell, ...SCENARIOS.filter((tools) => tools !== goalCell)];
        const over = bases.flatMap((tools) => {
          const r = scenarioRatio(target, scenario, tools, era);
          return r ? [`${ratio(r.ratio)} ${SCENARIO_LABEL[tools]}`] : [];
        });
        const costs = bases.flatMap((tools) => {
          const cell = summarise(target.id, tools, era);
          return cell ? [`${fixed(cell.cpuUs, 0)} µs ${SCENARIO_LABEL[tools]}`] : [];
        });
        console.log(
          `  ${goal.ratio <= (scenario === 'read' ? READ_GOAL : 1) ? 'PASS ' : 'ABOVE'}  ${label}: ${over.join(', ')} ` +
            `(${fixed(mine.cpuUs, 0)} µs per answer vs ${costs.join(', ')}; per round ` +
            `${goal.perRound.join(' ')} ${SCENARIO_LABEL[goalCell]})`,
        );
      }
    }
  }
}

/** Each variant target (sign-in, telemetry) with the plain server it is compared with, if it runs. */
function variantPairs(
  targets: readonly BenchTarget[],
  kind: (target: BenchTarget) => boolean | undefined,
): Array<readonly [BenchTarget, BenchTarget]> {
  return targets.flatMap((target) => {
    const plain = target.plain
      ?.map((id) => targets.find((other) => other.id === id))
      .find((other) => other !== undefined);
    return kind(target) && plain ? [[target, plain] as const] : [];
  });
}

/**
 * A variant's CPU per answer over its plain server's in one cell, both measured in the same
 * rounds: the ratio of the medians, the difference, and each round's own ratio (whose cells ran
 * back to back) with their median; `undefined` when either was not measured.
 */
function cpuComparison(
  variant: BenchTarget,
  plain: BenchTarget,
  scenario: Scenario,
  era: Era,
): { ratio: number; pairedRatio: number; text: string } | undefined {
  const mine = summarise(variant.id, scenario, era);
  const base = summarise(plain.id, scenario, era);
  const compared = pairedCells(
    { target: variant, scenario, era },
    { target: plain, scenario, era },
  );
  if (!mine || !base || !compared) return undefined;
  return {
    ratio: compared.ratio,
    pairedRatio: compared.paired,
    text:
      `${ratio(compared.ratio)} (${fixed(mine.cpuUs, 0)} vs ${fixed(base.cpuUs, 0)} µs, ` +
      `${mine.cpuUs >= base.cpuUs ? '+' : '−'}${fixed(Math.abs(mine.cpuUs - base.cpuUs), 0)} µs per answer; ` +
      `per round ${compared.rounds.map(ratio).join(' ')}, median ${ratio(compared.paired)}); ` +
      `req/s ${ratio(mine.rps / base.rps)}`,
  };
}

/**
 * OpenTelemetry's cost per adapter, scenario and era: the server with the SDK registered over
 * the same server without it, both measured in the same rounds. No goal: informational.
 */
function telemetryRatios(targets: readonly BenchTarget[]): void {
  const pairs = variantPairs(targets, (target) => target.telemetry);
  if (pairs.length === 0) return;
  console.log(
    `\n=== otel/plain CPU per answer: the same server with an OpenTelemetry SDK registered ` +
      `(BatchSpanProcessor over an in-memory exporter, metrics read every second: a SERVER span ` +
      `and an mcp.server.operation.duration record per request, an execute_tool span and a ` +
      `toolwright.tool.call.duration record per call) over the same server without one ` +
      `(informational: the exit code ignores it)`,
  );
  for (const [otel, plain] of pairs) {
    const scenarios = ALL_SCENARIOS.filter(
      (scenario) => measuresOn(otel, scenario) && measuresOn(plain, scenario),
    );
    for (const scenario of scenarios) {
      for (const era of ERAS) {
        const pair = `${otel.label} / ${plain.label}, ${SCENARIO_LABEL[scenario]} ${era}`;
        const comparison = cpuComparison(otel, plain, scenario, era);
        console.log(
          `  otel/plain CPU per answer, ${pair}: ${comparison ? comparison.text : 'not measured'}`,
        );
      }
    }
  }
  console.log(
    '  (every measured answer of these servers had its spans and records: checked after each cell)',
  );
}

/**
 * Sign-in's cost per adapter and era: the signed-in server's CPU per answer over the same
 * server's without sign-in, both measured in the same rounds (the ratio of the medians, and each
 * round's own ratio, whose cells ran back to back).
 */
function authRatios(targets: readonly BenchTarget[]): void {
  const pairs = variantPairs(targets, (target) => target.auth);
  if (pairs.length === 0) return;
  console.log(
    `\n=== auth/plain CPU per answer: tools/call echo with a bearer JWT verified per request ` +
      `(keys cached) over the same call without mcp.auth (goal ≤ ${fixed(AUTH_GOAL, 2)}×; ` +
      `informational: the exit code ignores it)`,
  );
  for (const [auth, plain] of pairs) {
    for (const era of ERAS) {
      const pair = `${auth.label} / ${plain.label}`;
      const comparison = cpuComparison(auth, plain, 'call', era);
      if (!comparison) {
        console.log(`  n/a    auth/plain CPU per answer, ${pair}, ${era}: not measured`);
        continue;
      }
      console.log(
        `  ${comparison.ratio <= AUTH_GOAL ? 'PASS ' : 'ABOVE'}  auth/plain CPU per answer, ${pair}, ${era}: ` +
          comparison.text,
      );
    }
  }
}

/** The CPU-per-answer ratio, steadier than req/s when other processes share the machine. */
function cpuNote(mine: Summary | undefined, base: Summary | undefined): string {
  if (!mine || !base) return '';
  return `; rekog spends ${ratio(base.cpuUs / mine.cpuUs)} the CPU per answer`;
}

function verdicts(targets: readonly BenchTarget[]): void {
  const line = (ok: boolean | undefined, text: string) =>
    console.log(`  ${ok === undefined ? 'n/a  ' : ok ? 'PASS ' : 'BELOW'}  ${text}`);
  console.log('\n=== Verdicts against issue 7 (informational: the exit code ignores them)');
  for (const target of targets.filter((t) => t.id.startsWith('toolwright') && !t.plain)) {
    console.log(
      `${target.label}${target.id === 'toolwright-express' ? '' : ' (the goals name Express; shown for reference)'}`,
    );
    for (const era of ERAS) {
      const mine = summarise(target.id, 'call', era);
      const base = summarise(BASELINE, 'call', era);
      const r = mine && base ? mine.rps / base.rps : NaN;
      line(
        Number.isFinite(r) ? r >= 2 : undefined,
        `tools/call ${era}: ${ratio(r)} rekog's req/s (goal ≥ 2×)${cpuNote(mine, base)}`,
      );
    }
    for (const era of ERAS) {
      const mine = summarise(target.id, 'list', era);
      const base = summarise(BASELINE, 'list', era);
      const r = mine && base ? mine.rps / base.rps : NaN;
      line(
        Number.isFinite(r) ? r >= 10 : undefined,
        `tools/list ${era} (${TOOLS} tools): ${ratio(r)} rekog's req/s (goal ≥ 10×)${cpuNote(mine, base)}`,
      );
    }
    const callPeak = (id: string) => {
      const values = ERAS.map((era) => summarise(id, 'call', era)?.peakRss).filter(
        (value): value is number => value !== undefined,
      );
      return values.length > 0 ? Math.max(...values) : NaN;
    };
    const mine = callPeak(target.id);
    const base = callPeak(BASELINE);
    line(
      Number.isFinite(mine) && Number.isFinite(base) ? mine <= base : undefined,
      `peak RSS under call load: ${mib(mine)} vs rekog's ${mib(base)} (goal ≤)`,
    );
  }
}

/**
 * Writes the run's medians and per-round figures as JSON (`bench/results/http.json`), then the
 * chart drawn from that JSON (`docs/images/bench-http.svg`).
 */
function writeResults(targets: readonly BenchTarget[], machine: string): void {
  const cells: ResultCell[] = targets.flatMap((target) =>
    SELECTED_SCENARIOS.flatMap((scenario) =>
      ERAS.flatMap((era) => {
        const s = summarise(target.id, scenario, era);
        if (!s) return [];
        const rekog = target.id === BASELINE ? undefined : summarise(BASELINE, scenario, era);
        const floor = floorOf(targets, target, scenario);
        const floorCell = floor && summarise(floor.id, scenario, era);
        return [
          {
            target: target.id,
            scenario,
            era,
            rps: s.rps,
            p50Ms: s.p50,
            p99Ms: s.p99,
            cpuUs: s.cpuUs,
            peakRssBytes: s.peakRss,
            bodyBytes: s.bodyBytes,
            otherCores: s.others,
            cpuOverRekog: rekog ? s.cpuUs / rekog.cpuUs : null,
            cpuOverFloor: floorCell ? s.cpuUs / floorCell.cpuUs : null,
            rounds: (runs.get(cellKey(target.id, scenario, era)) ?? []).map((run) => ({
              round: run.round,
              rps: run.load.rps,
              cpuUs: run.load.cpuUsPerRequest,
            })),
          },
        ];
      }),
    ),
  );
  const results: HttpResults = {
    date: new Date().toISOString(),
    machine,
    settings: {
      rounds: ROUNDS,
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      firstWarmupS: FIRST_WARMUP_S,
      connections: CONNECTIONS,
      tools: TOOLS,
    },
    targets: targets.map((target) => ({
      id: target.id,
      label: target.label,
      ...(no2026.has(target.id) && { notApplicable: ['2026' as const] }),
    })),
    cells,
  };
  for (const file of [RESULTS_JSON, RESULTS_SVG]) mkdirSync(dirname(file), { recursive: true });
  writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(
    RESULTS_SVG,
    renderChart(JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as HttpResults),
  );
  console.log(
    `\nresults: ${relative(REPO_DIR, RESULTS_JSON)}; chart: ${relative(REPO_DIR, RESULTS_SVG)}`,
  );
}

async function main(): Promise<void> {
  const targets = selectedTargets();
  const machine = await machineLine();
  console.log(`bench:http — ${machine}`);
  console.log(
    `targets: ${targets.map((t) => t.label).join(', ')}; ` +
      (process.env.BENCH_SCENARIOS
        ? `cells: ${SELECTED_SCENARIOS.map((scenario) => SCENARIO_LABEL[scenario]).join(', ')}; `
        : '') +
      `${ROUNDS} round(s), interleaved; ` +
      `warm-up ${WARMUP_S} s (${FIRST_WARMUP_S} s for a server's first cell) + ${DURATION_S} s ` +
      `measured per cell, ` +
      `${CONNECTIONS} connections; CLK_TCK ${CLK_TCK}`,
  );
  const started = Date.now();
  const modern: { requests?: EraRequests } = {};
  const issuer = targets.some((target) => target.auth) ? await startIssuer() : undefined;
  if (issuer) console.log(`issuer for the signed-in targets: ${issuer.url} (RS256, one key)`);
  try {
    for (let round = 1; round <= ROUNDS; round++) await runTargets(targets, round, modern, issuer);
  } finally {
    await issuer?.close();
  }
  report(targets);
  writeResults(targets, machine);
  console.log(
    `\nbench:http took ${fixed((Date.now() - started) / 1000, 0)} s; ${await machineLine()}`,
  );
}

try {
  await main();
} catch (error) {
  console.error(
    `\nbench:http FAILED: ${error instanceof BenchFailure ? error.message : (error as Error).stack}`,
  );
  process.exitCode = 1;
}
