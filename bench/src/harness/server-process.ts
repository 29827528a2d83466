/** Benchmark servers as child processes, and what /proc says about them. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_DIR, BUILD_DIR } from '../shared/paths.js';
import { READY_PREFIX, type ReadyLine } from '../shared/ready.js';
import { BenchFailure } from './mcp.js';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (`getconf CLK_TCK`, 100 here). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * Whether servers run on core 0 and this harness (the load generator) on core 1, so that the
 * two never take each other's CPU and a faster server is not slowed by the load it draws. On by
 * default where `taskset` exists and there are two cores or more; `BENCH_PIN=0` turns it off.
 */
export const PINNED = (() => {
  if (process.env.BENCH_PIN === '0' || availableParallelism() < 2) return false;
  try {
    // Every thread of this process (autocannon runs here) moves to core 1.
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** How servers and the load generator share the cores, for the heading of every report. */
export const PINNING = PINNED
  ? 'servers pinned to core 0, the load generator to core 1 (BENCH_PIN=0 to share both)'
  : 'servers and the load generator share every core';

export interface ServerSpec {
  /** Short id, used in BENCH_TARGETS. */
  readonly id: string;
  /** What the tables print. */
  readonly label: string;
  /** The compiled entry point, relative to the build folder. */
  readonly entry: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunningServer {
  readonly spec: ServerSpec;
  readonly pid: number;
  readonly url: string;
  readonly ready: ReadyLine;
  /** utime + stime of the whole process (all threads), in seconds. */
  cpuSeconds(): number;
  /** Peak resident set size so far (VmHWM), in bytes. */
  peakRss(): number;
  /**
   * Sends `signal` and resolves with the rest of the next stdout line that starts with `prefix`:
   * a question the server answers on its stdout (a `TELEMETRY` server's counts, on SIGUSR2).
   */
  ask(signal: NodeJS.Signals, prefix: string, timeoutMs?: number): Promise<string>;
  /**
   * SIGTERM, then SIGKILL after `killAfterMs` (10 s). An exit slower than 2 s is reported: a
   * server's graceful close waits for the answers it still owes, so a slow exit means an answer
   * that was never finished.
   */
  stop(options?: { killAfterMs?: number }): Promise<void>;
}

function procStatus(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new BenchFailure(`/proc/${pid}/status has no ${field}`);
  return Number(match[1]) * 1024;
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Starts `spec` on a free loopback port with NODE_ENV=production and waits for its ready line.
 * `BENCH_NODE_OPTIONS` adds node flags (for example `--cpu-prof`).
 */
export async function startServer(
  spec: ServerSpec,
  options: { nodeFlags?: readonly string[]; timeoutMs?: number } = {},
): Promise<RunningServer> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const nodeFlags = [
    ...(process.env.BENCH_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
    ...(options.nodeFlags ?? []),
  ];
  const command = [process.execPath, ...nodeFlags, join(BUILD_DIR, spec.entry)];
  // taskset execs node, so the child's pid is the server's.
  const [file, ...args] = PINNED ? ['taskset', '-c', '0', ...command] : command;
  const child: ChildProcess = spawn(file, args, {
    cwd: BENCH_DIR,
    env: {
      ...process.env,
      ...spec.env,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    if (stderr.length > 200) stderr.shift();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  /** Who waits for a line of stdout that starts with a prefix (the ready line, an answer). */
  const waiting: Array<{ readonly prefix: string; readonly take: (rest: string) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const index = waiting.findIndex(({ prefix }) => line.startsWith(prefix));
    if (index < 0) return;
    const [{ prefix, take }] = waiting.splice(index, 1);
    take(line.slice(prefix.length));
  });
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new BenchFailure(`${spec.label}: no ready line within ${timeoutMs} ms`)),
      timeoutMs,
    );
    waiting.push({
      prefix: READY_PREFIX,
      take: (rest) => {
        clearTimeout(timer);
        resolve(JSON.parse(rest) as ReadyLine);
      },
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new BenchFailure(
          `${spec.label} exited with code ${code} before it was ready:\n${stderr.join('')}`,
        ),
      );
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  let stopped = false;
  void exited.then((code) => {
    if (!stopped) {
      console.error(`\n${spec.label} (pid ${child.pid}) exited unexpectedly with code ${code}`);
      console.error(stderr.join(''));
    }
  });
  const pid = child.pid!;
  return {
    spec,
    pid,
    url: `http://127.0.0.1:${ready.port}/mcp`,
    ready,
    cpuSeconds: () => cpuTicks(pid) / CLK_TCK,
    peakRss: () => procStatus(pid, 'VmHWM'),
    ask(signal, prefix, askTimeoutMs = 10_000) {
      return new Promise<string>((resolve, reject) => {
        const entry = { prefix, take: (rest: string) => resolve(rest) };
        const timer = setTimeout(() => {
          const index = waiting.indexOf(entry);
          if (index >= 0) waiting.splice(index, 1);
          reject(
            new BenchFailure(
              `${spec.label}: no "${prefix.trim()}" line within ${askTimeoutMs} ms of ${signal}`,
            ),
          );
        }, askTimeoutMs);
        entry.take = (rest) => {
          clearTimeout(timer);
          resolve(rest);
        };
        waiting.push(entry);
        child.kill(signal);
      });
    },
    async stop({ killAfterMs = 10_000 } = {}) {
      stopped = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const started = Date.now();
      let killed = false;
      const kill = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, killAfterMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
      const took = Date.now() - started;
      if (took > 2_000) {
        console.log(
          `  ${spec.label} (pid ${pid}) ${killed ? `did not exit within ${killAfterMs} ms of SIGTERM: killed` : `took ${took} ms to exit after SIGTERM`}`,
        );
      }
    },
  };
}
