/**
 * One measured cell: validate, warm up, measure, validate again. Shared by bench:http and
 * bench:scale; bench:tasks replays its fixed requests through the same {@link replay}.
 */
import { fixed, int, median, mib, ms } from './format.js';
import { assertCleanLoad, measure, warmUp, type LoadResult } from './load.js';
import {
  BenchFailure,
  validateOnce,
  type Era,
  type EraRequests,
  type OperationScenario,
  type ReplayRequest,
  type Scenario,
  type ToolScenario,
} from './mcp.js';
import type { RawResponse } from './http-client.js';
import type { RunningServer } from './server-process.js';

/** The tools' cells: measured on every target that does not name its own scenarios. */
export const SCENARIOS: readonly ToolScenario[] = ['call', 'list'];
/** The resources' and prompts' cells: measured only on the targets that name them. */
export const OPERATION_SCENARIOS: readonly OperationScenario[] = ['resources', 'prompts', 'read'];
export const ALL_SCENARIOS: readonly Scenario[] = [...SCENARIOS, ...OPERATION_SCENARIOS];
export const ERAS: readonly Era[] = ['2025', '2026'];
export const SCENARIO_LABEL: Record<Scenario, string> = {
  call: 'tools/call echo',
  list: 'tools/list',
  resources: 'resources/list',
  prompts: 'prompts/list',
  read: 'resources/read',
};

/** Whether a target that names `scenarios` (the tools' when absent) measures `scenario`. */
export const measures = (scenarios: readonly Scenario[] | undefined, scenario: Scenario) =>
  (scenarios ?? (SCENARIOS as readonly Scenario[])).includes(scenario);

export interface CellSettings {
  readonly warmupS: number;
  /**
   * Warm-up of the first cell after a server starts, longer than `warmupS`: that cell also warms
   * the code every cell shares (HTTP stack, routing, body parsing), which would otherwise count
   * against whichever scenario runs first. A server's first resources or prompts cell warms up
   * as long: toolwright answers those through the MCP SDK, code no tools cell runs.
   */
  readonly firstWarmupS: number;
  readonly durationS: number;
  readonly connections: number;
  readonly toolCount: number;
}

/** The groups of cells each server has run a first cell of: the tools', the operations'. */
const warmed = new WeakMap<RunningServer, Set<'tools' | 'operations'>>();

/** Whether this is the server's first cell of the scenario's group; marks it run. */
function firstOfGroup(server: RunningServer, scenario: Scenario): boolean {
  const group = (SCENARIOS as readonly Scenario[]).includes(scenario) ? 'tools' : 'operations';
  const groups = warmed.get(server) ?? new Set();
  warmed.set(server, groups);
  if (groups.has(group)) return false;
  groups.add(group);
  return true;
}

export interface CellRun {
  readonly round: number;
  readonly load: LoadResult;
  /** VmHWM at the end of the cell: the process's peak so far (boot and earlier cells included). */
  readonly peakRss: number;
  /** Bytes of one answer's body. */
  readonly bodyBytes: number;
  /** Whether every answer under load was compared with a validated body. */
  readonly exact: boolean;
}

/** How {@link replay} loads a server with one request, and how it checks an answer. */
export interface ReplayPlan {
  /** Sends the request once and checks the answer (`when`: before or after); throws `BenchFailure`. */
  readonly check: (when: string) => Promise<RawResponse>;
  readonly connections: number;
  readonly warmupS: number;
  readonly durationS: number;
}

/** What {@link replay} measured, and the first answer it checked. */
export interface Replayed {
  readonly load: LoadResult;
  readonly body: string;
  /** Whether every answer under load was compared with the checked body. */
  readonly exact: boolean;
}

/**
 * Checks two answers (and compares them), warms up, measures, checks once more. When the two
 * first answers are identical bytes, every answer under load, and the last one, must be those
 * bytes too. Throws `BenchFailure` otherwise. `what` names the cell in failures.
 */
export async function replay(
  server: RunningServer,
  request: ReplayRequest,
  what: string,
  plan: ReplayPlan,
): Promise<Replayed> {
  const one = await plan.check('before');
  const two = await plan.check('before');
  const expectBody = one.body === two.body ? one.body : undefined;
  const options = { connections: plan.connections, request, expectBody };
  await warmUp(server, { ...options, seconds: plan.warmupS });
  const load = await measure(server, { ...options, seconds: plan.durationS });
  assertCleanLoad(load, what);
  const after = await plan.check('after');
  if (expectBody !== undefined && after.body !== expectBody) {
    throw new BenchFailure(`${what}, after: the answer changed under load:\n${after.body}`);
  }
  return { load, body: one.body, exact: expectBody !== undefined };
}

/**
 * Validates two answers (and compares them), warms up, measures, validates once more. Before
 * and after must be results (the echo, or every tool); when the two first answers are identical
 * bytes, every answer under load must be those bytes too. Throws `BenchFailure` otherwise.
 */
export async function runCell(
  server: RunningServer,
  round: number,
  scenario: Scenario,
  era: Era,
  request: ReplayRequest,
  settings: CellSettings,
): Promise<CellRun> {
  const what = `${server.spec.label} — ${SCENARIO_LABEL[scenario]} ${era} (round ${round})`;
  const first = firstOfGroup(server, scenario);
  const { load, body, exact } = await replay(server, request, what, {
    check: (when) =>
      validateOnce(server.url, request, scenario, settings.toolCount, `${what}, ${when}`),
    connections: settings.connections,
    warmupS: first ? Math.max(settings.warmupS, settings.firstWarmupS) : settings.warmupS,
    durationS: settings.durationS,
  });
  const run: CellRun = {
    round,
    load,
    peakRss: server.peakRss(),
    bodyBytes: Buffer.byteLength(body),
    exact,
  };
  console.log(
    `  ${server.spec.id.padEnd(23)} ${SCENARIO_LABEL[scenario].padEnd(15)} ${era}  ${int(load.rps).padStart(7)} req/s  ` +
      `p50 ${ms(load.p50).padStart(8)}  p99 ${ms(load.p99).padStart(8)}  ` +
      `${fixed(load.cpuUsPerRequest, 0).padStart(5)} µs CPU/req  peak RSS ${mib(run.peakRss)}  ` +
      `others ${fixed(load.otherCores, 2)} cores  ` +
      `(${int(load.requests)} answers${run.exact ? ', every body compared' : ', status-checked'})`,
  );
  return run;
}

/** A running server, what its cells replay (no requests for an era: its cells are skipped), and how. */
export interface CellTarget {
  readonly server: RunningServer;
  readonly requests: Readonly<Record<Era, EraRequests | undefined>>;
  readonly settings: CellSettings;
  /** The scenarios measured on this server ({@link SCENARIOS}, the tools', when absent). */
  readonly scenarios?: readonly Scenario[];
  /** A check after each of this server's cells, outside the measured window; throws to fail. */
  readonly afterCell?: (scenario: Scenario, era: Era, run: CellRun) => Promise<void>;
  /**
   * Servers of one group are measured one right after the other in every cell (their order
   * reversed every other round), so that a ratio between them compares figures taken seconds
   * apart, in the same period of the machine. A server without one is a group of its own.
   */
  readonly group?: string;
}

/** The servers in a round's order: each round starts one further along. */
export function rotation<T>(targets: readonly T[], round: number): T[] {
  const shift = (round - 1) % targets.length;
  return [...targets.slice(shift), ...targets.slice(0, shift)];
}

/** The servers in a round's order: groups kept together and rotated, each reversed every other round. */
export function groupedRotation(targets: readonly CellTarget[], round: number): CellTarget[] {
  const groups = new Map<string | CellTarget, CellTarget[]>();
  for (const target of targets) {
    const key = target.group ?? target;
    groups.set(key, [...(groups.get(key) ?? []), target]);
  }
  return rotation([...groups.values()], round).flatMap((group) =>
    round % 2 === 0 ? [...group].reverse() : group,
  );
}

/**
 * One round of cells on servers that are all running: each scenario and era is measured on every
 * server in turn before the next, so that a slower period of the machine falls on all of them
 * alike rather than on whichever server ran then. The servers' order rotates with the round, and
 * the servers of a group are measured one after the other.
 */
export async function runRound(
  targets: readonly CellTarget[],
  round: number,
  record: (target: CellTarget, scenario: Scenario, era: Era, run: CellRun) => void,
): Promise<void> {
  const order = groupedRotation(targets, round);
  for (const scenario of ALL_SCENARIOS) {
    for (const era of ERAS) {
      for (const target of order) {
        const requests = target.requests[era];
        if (!requests || !measures(target.scenarios, scenario)) continue;
        const { server, settings } = target;
        const request = requests[scenario];
        if (!request) {
          throw new BenchFailure(
            `${server.spec.label}: no ${era} request for ${SCENARIO_LABEL[scenario]}`,
          );
        }
        const run = await runCell(server, round, scenario, era, request, settings);
        await target.afterCell?.(scenario, era, run);
        record(target, scenario, era, run);
      }
    }
  }
}

/** Mean cores used by other processes over several runs. */
export const otherCores = (cell: readonly CellRun[]) =>
  cell.reduce((sum, run) => sum + run.load.otherCores, 0) / cell.length;

/**
 * A cell's figures over its rounds, one server start each: medians, so that one start during a
 * slow period of the machine does not move them.
 */
export function cellMedians(cell: readonly CellRun[]) {
  const of = (figure: (run: CellRun) => number) => median(cell.map(figure));
  return {
    rps: of((run) => run.load.rps),
    p50: of((run) => run.load.p50),
    p99: of((run) => run.load.p99),
    cpuUs: of((run) => run.load.cpuUsPerRequest),
  };
}
