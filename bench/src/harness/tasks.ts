/**
 * `npm run bench:tasks`: what MCP tasks cost a toolwright server. The toolwright bench server
 * (Express) runs twice, each started once for the whole run: with `TASKS=memory` (tasks in an
 * `InMemoryTaskStore`) and with `TASKS=redis` (`RedisTaskStore` and `RedisInstanceBus` on a
 * `redis-server` the harness starts on a free loopback port, persisting nothing; without
 * `redis-server` the run measures the in-memory store alone and says how to install it). Both
 * serve one more tool, `report` (`{ text }` back at once, `task: 'optional'`).
 *
 * Three operations, each on both eras (2025-11-25: `params.task`; 2026-07-28: the tasks
 * extension declared in the request's `_meta`), server CPU per operation:
 *
 * - `call`: `tools/call report` without a task, the baseline (through the MCP SDK, as every
 *   call of a tool that may run as a task);
 * - `poll`: `tasks/get` of one completed task, created first and replayed (autocannon, as
 *   bench:http replays its requests: checked before and after, every answer compared);
 * - `roundtrip`: one task's whole life as a client drives it — `tools/call` with a task, then
 *   `tasks/get` until `completed` (2026: the result inlined), then (2025) `tasks/result` — by
 *   BENCH_CONNECTIONS concurrent sequential drivers on keep-alive connections, each task with
 *   its own text, every answer checked. The drivers poll again as soon as an answer arrives (the
 *   server advises 1 ms, and the advice is not waited out): the figure is the server's cost of
 *   a round trip, not a client's pace.
 *
 * Each of BENCH_ROUNDS rounds measures every operation and era on each store in turn (the order
 * rotates every round), BENCH_WARMUP_S of load (BENCH_FIRST_WARMUP_S for an operation's first
 * cell on a server), then BENCH_DURATION_S measured; the report gives medians over the rounds.
 * Any wrong answer fails the run (exit 1); timings never do.
 *
 * Environment: BENCH_WARMUP_S (1.5), BENCH_FIRST_WARMUP_S (8), BENCH_DURATION_S (4),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), BENCH_NODE_OPTIONS (node flags for the servers).
 */
import { REPORT_TOOL, type TasksMode } from '../shared/tasks.js';
import { ERAS, replay, rotation, type Replayed } from './cells.js';
import { envNumber, fixed, int, machineLine, median, ratio, table } from './format.js';
import { post } from './http-client.js';
import { cpuWindow } from './load.js';
import { BenchFailure, checkCall, ECHO_TEXT, idOf, type Era, type ReplayRequest } from './mcp.js';
import { REDIS_INSTALL, startRedis, type RedisProcess } from './redis-server.js';
import { CLK_TCK, startServer, type RunningServer, type ServerSpec } from './server-process.js';
import {
  driveRoundTrips,
  ERA_VERSION,
  getTask,
  plainCall,
  roundTrip,
  statusOf,
  taskCall,
} from './task-client.js';

const WARMUP_S = envNumber('BENCH_WARMUP_S', 1.5);
const FIRST_WARMUP_S = envNumber('BENCH_FIRST_WARMUP_S', 8);
const DURATION_S = envNumber('BENCH_DURATION_S', 4, 0.5);
const ROUNDS = Math.round(envNumber('BENCH_ROUNDS', 3, 1));
const CONNECTIONS = Math.round(envNumber('BENCH_CONNECTIONS', 10, 1));

const OPERATIONS = ['call', 'poll', 'roundtrip'] as const;
type Operation = (typeof OPERATIONS)[number];
const OPERATION_LABEL: Record<Operation, string> = {
  call: `tools/call ${REPORT_TOOL}`,
  poll: 'tasks/get',
  roundtrip: 'task round trip',
};
/** What the report's rows say each operation is. */
const OPERATION_ROW: Record<Operation, Record<Era, string>> = {
  call: {
    '2025': `call: tools/call ${REPORT_TOOL}, no task`,
    '2026': `call: tools/call ${REPORT_TOOL}, no task`,
  },
  poll: {
    '2025': 'poll: tasks/get of a completed task',
    '2026': 'poll: tasks/get of a completed task (result inlined)',
  },
  roundtrip: {
    '2025': 'roundtrip: tools/call + tasks/get… + tasks/result',
    '2026': 'roundtrip: tools/call + tasks/get…',
  },
};
const STORE_LABEL: Record<TasksMode, string> = {
  memory: 'InMemoryTaskStore',
  redis: 'RedisTaskStore + RedisInstanceBus',
};

/** The toolwright bench server with tasks in `mode`'s store. */
const spec = (mode: TasksMode, redisUrl?: string): ServerSpec => ({
  id: `toolwright-express-tasks-${mode}`,
  label: `toolwright (Express), ${STORE_LABEL[mode]}`,
  entry: 'servers/toolwright.js',
  env: { ADAPTER: 'express', TASKS: mode, ...(redisUrl !== undefined && { REDIS_URL: redisUrl }) },
});

interface StoreTarget {
  readonly mode: TasksMode;
  readonly server: RunningServer;
}

/** One operation measured once. */
interface OperationRun {
  /** Operations per second: answers (call, poll) or round trips. */
  readonly rate: number;
  /** Server CPU (user + system, all threads) per operation, in microseconds. */
  readonly cpuUs: number;
  readonly requestsPerOperation: number;
  readonly operations: number;
  readonly otherCores: number;
}

const runs = new Map<string, OperationRun[]>();
const cellKey = (mode: TasksMode, operation: Operation, era: Era) => `${mode}|${operation}|${era}`;
/** The operations each server has had a first, longer warm-up for. */
const warmed = new Set<string>();

/** The warm-up of an operation's cell: longer the first time it runs on a server. */
function warmupOf(target: StoreTarget, operation: Operation): number {
  const key = `${target.mode}|${operation}`;
  if (warmed.has(key)) return WARMUP_S;
  warmed.add(key);
  return Math.max(WARMUP_S, FIRST_WARMUP_S);
}

/** What a cell measured, and how its answers were checked. */
interface Measured {
  readonly run: OperationRun;
  readonly checked: string;
}

/** A replayed request's run (`call`, `poll`): each request is one operation. */
function replayed({ load, exact }: Replayed): Measured {
  return {
    run: {
      rate: load.rps,
      cpuUs: load.cpuUsPerRequest,
      requestsPerOperation: 1,
      operations: load.requests,
      otherCores: load.otherCores,
    },
    checked: exact ? 'every body compared' : 'status-checked',
  };
}

/** `tools/call report` without a task, replayed; every answer the echoed text. */
async function callCell(target: StoreTarget, era: Era, what: string): Promise<Measured> {
  const request = plainCall(era, 1, ECHO_TEXT);
  const cell = await replay(target.server, request, what, {
    check: async (when) => {
      const response = await post(target.server.url, request.headers, request.body);
      checkCall(response, idOf(request), `${what}, ${when}`);
      return response;
    },
    connections: CONNECTIONS,
    warmupS: warmupOf(target, 'call'),
    durationS: DURATION_S,
  });
  return replayed(cell);
}

/** `tasks/get` of one task, completed first, replayed; every answer that task, completed. */
async function pollCell(target: StoreTarget, era: Era, what: string): Promise<Measured> {
  const { url } = target.server;
  const { handle } = await roundTrip(url, era, ECHO_TEXT, `${what}, setup`);
  const request: ReplayRequest = getTask(era, 1, handle.taskId);
  const cell = await replay(target.server, request, what, {
    check: async (when) => {
      const response = await post(url, request.headers, request.body);
      const at = `${what}, ${when}`;
      const status = statusOf(era, response, idOf(request), handle.taskId, ECHO_TEXT, at);
      if (status !== 'completed') throw new BenchFailure(`${at}: the task is ${status} again`);
      return response;
    },
    connections: CONNECTIONS,
    warmupS: warmupOf(target, 'poll'),
    durationS: DURATION_S,
  });
  return replayed(cell);
}

/** Concurrent drivers running tasks through their whole life; every answer checked. */
async function roundTripCell(target: StoreTarget, era: Era, what: string): Promise<Measured> {
  const { server } = target;
  const warmupS = warmupOf(target, 'roundtrip');
  if (warmupS > 0) await driveRoundTrips(server.url, era, CONNECTIONS, warmupS, `${what}, warm-up`);
  const spent = cpuWindow(server);
  const started = performance.now();
  const driven = await driveRoundTrips(server.url, era, CONNECTIONS, DURATION_S, what);
  const seconds = (performance.now() - started) / 1000;
  const { serverSeconds, otherCores } = spent(seconds);
  if (driven.roundTrips === 0) throw new BenchFailure(`${what}: no round trip ended`);
  return {
    run: {
      rate: driven.roundTrips / seconds,
      cpuUs: (serverSeconds * 1e6) / driven.roundTrips,
      requestsPerOperation: driven.requests / driven.roundTrips,
      operations: driven.roundTrips,
      otherCores,
    },
    checked: 'every answer checked',
  };
}

const CELLS = { call: callCell, poll: pollCell, roundtrip: roundTripCell };

async function runCell(target: StoreTarget, operation: Operation, era: Era, round: number) {
  const label = `${OPERATION_LABEL[operation]} ${era}`;
  const what = `${target.server.spec.label} — ${label} (round ${round})`;
  const { run, checked } = await CELLS[operation](target, era, what);
  const key = cellKey(target.mode, operation, era);
  runs.set(key, [...(runs.get(key) ?? []), run]);
  const unit = operation === 'roundtrip' ? 'round trips/s' : 'req/s';
  console.log(
    `  ${target.mode.padEnd(6)} ${label.padEnd(22)} ${int(run.rate).padStart(7)} ${unit.padEnd(13)} ` +
      `${fixed(run.cpuUs, 0).padStart(5)} µs CPU/op  ${fixed(run.requestsPerOperation, 2)} req/op  ` +
      `others ${fixed(run.otherCores, 2)} cores  (${int(run.operations)} ops, ${checked})`,
  );
}

/** One round: each operation and era measured on every store in turn; the order rotates. */
async function runRound(targets: readonly StoreTarget[], round: number): Promise<void> {
  console.log(`\n[round ${round}]`);
  const order = rotation(targets, round);
  for (const operation of OPERATIONS) {
    for (const era of ERAS) {
      for (const target of order) await runCell(target, operation, era, round);
    }
  }
}

/** Starts the server of a store and runs one task on each era, which must come back right. */
async function startTarget(mode: TasksMode, redis?: RedisProcess): Promise<StoreTarget> {
  const server = await startServer(spec(mode, redis?.url));
  try {
    console.log(`${server.spec.label}: pid ${server.pid}, ready in ${int(server.ready.bootMs)} ms`);
    for (const era of ERAS) {
      const probe = `${server.spec.label} ${era} probe`;
      const { handle, requests } = await roundTrip(server.url, era, ECHO_TEXT, probe);
      console.log(
        `  ${ERA_VERSION[era]}: a task ran in ${requests} requests; the server advises polling ` +
          `every ${String(handle.pollIntervalMs)} ms`,
      );
    }
    return { mode, server };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

const summarise = (mode: TasksMode, operation: Operation, era: Era) => {
  const cell = runs.get(cellKey(mode, operation, era));
  if (!cell || cell.length === 0) return undefined;
  const of = (figure: (run: OperationRun) => number) => median(cell.map(figure));
  return {
    rate: of((run) => run.rate),
    cpuUs: of((run) => run.cpuUs),
    requestsPerOperation: of((run) => run.requestsPerOperation),
    otherCores: cell.reduce((sum, run) => sum + run.otherCores, 0) / cell.length,
  };
};

function report(targets: readonly StoreTarget[]): void {
  console.log(
    `\n=== Results: median of ${ROUNDS} round(s) of ${DURATION_S} s per cell, ${CONNECTIONS} ` +
      `connections or drivers (CPU = server user+system time per operation; × call = over ` +
      `tools/call ${REPORT_TOOL} without a task, same store and era; other cores = CPU other ` +
      `processes used meanwhile: with the Redis store, Redis's own CPU among them)`,
  );
  for (const { mode } of targets) {
    for (const era of ERAS) {
      const call = summarise(mode, 'call', era);
      const rows = OPERATIONS.map((operation) => {
        const s = summarise(mode, operation, era);
        if (!s) return [OPERATION_ROW[operation][era], '—'];
        const unit = operation === 'roundtrip' ? 'round trips/s' : 'req/s';
        return [
          OPERATION_ROW[operation][era],
          `${int(s.rate)} ${unit}`,
          fixed(s.requestsPerOperation, 2),
          fixed(s.cpuUs, 0),
          fixed(s.cpuUs / s.requestsPerOperation, 0),
          call ? ratio(s.cpuUs / call.cpuUs) : '—',
          fixed(s.otherCores, 2),
        ];
      });
      console.log(`\n${STORE_LABEL[mode]} — ${ERA_VERSION[era]}`);
      console.log(
        table(
          ['operation', 'rate', 'req/op', 'CPU µs/op', 'CPU µs/req', '× call', 'other cores'],
          rows,
        ),
      );
    }
  }
  console.log('');
  for (const { mode } of targets) {
    /** An operation's CPU on each era, over the call's and, for Redis, over the memory store's. */
    const part = (operation: Operation) =>
      ERAS.map((era) => {
        const mine = summarise(mode, operation, era);
        const call = summarise(mode, 'call', era);
        const memory = mode === 'memory' ? undefined : summarise('memory', operation, era);
        if (!mine || !call) return `— on ${ERA_VERSION[era]}`;
        return (
          `${fixed(mine.cpuUs, 0)} µs on ${ERA_VERSION[era]} (${ratio(mine.cpuUs / call.cpuUs)} ` +
          `a plain call` +
          (memory ? `, ${ratio(mine.cpuUs / memory.cpuUs)} the in-memory store's` : '') +
          (operation === 'roundtrip' ? `, ${fixed(mine.requestsPerOperation, 2)} requests` : '') +
          ')'
        );
      }).join(' and ');
    console.log(
      `${STORE_LABEL[mode]}: a task's round trip costs ${part('roundtrip')}; ` +
        `a tasks/get of a completed task ${part('poll')}.`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`bench:tasks — ${await machineLine()}`);
  console.log(
    `${ROUNDS} round(s), interleaved; warm-up ${WARMUP_S} s (${FIRST_WARMUP_S} s for an ` +
      `operation's first cell on a server) + ${DURATION_S} s measured per cell, ${CONNECTIONS} ` +
      `connections (call, poll) or concurrent drivers (round trip), which poll again as soon as ` +
      `an answer arrives rather than after the advised interval; CLK_TCK ${CLK_TCK}`,
  );
  const sample = taskCall('2026', 1, ECHO_TEXT);
  console.log(`2026-07-28 task call: headers ${JSON.stringify(sample.headers)}`);
  console.log(`                      body    ${sample.body}`);
  const started = Date.now();
  const redis = await startRedis();
  if (redis) {
    console.log(`redis-server: pid ${redis.pid} at ${redis.url} (nothing persisted)`);
  } else {
    console.log(
      `redis-server is not installed: measuring the in-memory store only. To measure ` +
        `RedisTaskStore too, install it (${REDIS_INSTALL}) and run again.`,
    );
  }
  const targets: StoreTarget[] = [];
  try {
    targets.push(await startTarget('memory'));
    if (redis) targets.push(await startTarget('redis', redis));
    for (let round = 1; round <= ROUNDS; round++) await runRound(targets, round);
  } finally {
    await Promise.all(targets.map((target) => target.server.stop()));
    await redis?.stop();
  }
  report(targets);
  console.log(
    `\nbench:tasks took ${fixed((Date.now() - started) / 1000, 0)} s; ${await machineLine()}`,
  );
}

try {
  await main();
} catch (error) {
  console.error(
    `\nbench:tasks FAILED: ${error instanceof BenchFailure ? error.message : (error as Error).stack}`,
  );
  process.exitCode = 1;
}
