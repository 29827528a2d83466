/** One autocannon run against a server, with the server's CPU time over the measured window. */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { BenchFailure, type ReplayRequest } from './mcp.js';
import { CLK_TCK, type RunningServer } from './server-process.js';

export interface LoadOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly request: ReplayRequest;
  /** When set, every answer's body must be exactly this (autocannon counts mismatches). */
  readonly expectBody?: string;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly mismatches: number;
  /** Server CPU (user + system, all threads) per answered request, in microseconds. */
  readonly cpuUsPerRequest: number;
  /**
   * Cores busy with anything but the server and this harness during the window (from
   * /proc/stat): other processes on the machine, which make req/s unreliable when high.
   */
  readonly otherCores: number;
}

/** Seconds of CPU the whole machine spent busy (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK;
}

/** This process's CPU time in seconds. */
function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

function run(url: string, options: LoadOptions): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        connections: options.connections,
        pipelining: 1,
        duration: options.seconds,
        // autocannon sets content-length itself.
        headers: { ...options.request.headers },
        body: options.request.body,
        ...(options.expectBody !== undefined && { expectBody: options.expectBody }),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** What a server and the rest of the machine spent over a window of {@link cpuWindow}. */
export interface CpuSpent {
  /** The server's CPU seconds (user + system, all threads). */
  readonly serverSeconds: number;
  /** Cores busy with anything but the server and this harness, on average over the window. */
  readonly otherCores: number;
}

/**
 * Starts a window over the server's CPU time (and the machine's and this harness's, to tell how
 * busy other processes kept it): call the function it returns when the window ends, with the
 * window's length in seconds.
 */
export function cpuWindow(server: RunningServer): (seconds: number) => CpuSpent {
  const machineBefore = machineBusySeconds();
  const ownBefore = ownCpuSeconds();
  const cpuBefore = server.cpuSeconds();
  return (seconds) => {
    const serverSeconds = server.cpuSeconds() - cpuBefore;
    const own = ownCpuSeconds() - ownBefore;
    const machine = machineBusySeconds() - machineBefore;
    return { serverSeconds, otherCores: Math.max(0, machine - serverSeconds - own) / seconds };
  };
}

/** Runs the load and reads the server's CPU ticks right before and right after it. */
export async function measure(server: RunningServer, options: LoadOptions): Promise<LoadResult> {
  const spent = cpuWindow(server);
  const result = await run(server.url, options);
  const requests = result.requests.total;
  const seconds = result.duration;
  const { serverSeconds, otherCores } = spent(seconds);
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
    cpuUsPerRequest: requests > 0 ? (serverSeconds * 1e6) / requests : NaN,
    otherCores,
  };
}

/** Warm-up: the same load, unmeasured, whose failures still stop the run. */
export async function warmUp(server: RunningServer, options: LoadOptions): Promise<void> {
  if (options.seconds <= 0) return;
  const result = await run(server.url, options);
  assertClean(result, `warm-up against ${server.spec.label}`);
}

function assertClean(
  result: Pick<LoadResult, 'non2xx' | 'errors' | 'timeouts' | 'mismatches'>,
  what: string,
): void {
  const problems = (['non2xx', 'errors', 'timeouts', 'mismatches'] as const)
    .filter((key) => result[key] > 0)
    .map((key) => `${result[key]} ${key}`);
  if (problems.length > 0) throw new BenchFailure(`${what}: ${problems.join(', ')}`);
}

/** Fails the cell when any answer was not a 2xx, failed, timed out or differed from the expected body. */
export function assertCleanLoad(result: LoadResult, what: string): void {
  assertClean(result, what);
  if (result.requests === 0) throw new BenchFailure(`${what}: no request was answered`);
}
