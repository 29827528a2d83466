/**
 * `npm run sample:cluster` leaves no process behind whatever ends it: its own failure (a PORT it
 * cannot listen on, once Redis and the instances are up), and the death of its redis-server.
 * Each process it started is checked by the PID it printed.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../sample/ports.js';
import { waitFor } from '../fixtures/timing.js';
import { alive } from '../fixtures/processes.js';

const dirs: string[] = [];
const launched: Array<{ cluster: ChildProcess; output: () => string }> = [];
let blocker: Server | undefined;

/** Starts the cluster from source on `port`, with a database of its own. */
function launch(port: number) {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-cluster-exit-'));
  dirs.push(dir);
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  const cluster = spawn(process.execPath, ['--import', 'tsx', 'sample/cluster/main.ts'], {
    cwd: process.cwd(),
    env: { ...env, PORT: String(port), HELPDESK_DB: join(dir, 'helpdesk.db') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  cluster.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  cluster.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const launch = { cluster, output: () => output };
  launched.push(launch);
  return launch;
}

/** The PIDs of the processes the launcher said it started. */
const startedPids = (output: string) =>
  [...output.matchAll(/started \(pid (\d+)\)/g)].map((match) => Number(match[1]));

afterEach(async () => {
  for (const { cluster, output } of launched.splice(0)) {
    if (cluster.exitCode === null && cluster.signalCode === null) cluster.kill('SIGKILL');
    for (const pid of startedPids(output())) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  if (blocker) await new Promise((resolve) => blocker!.close(resolve));
  blocker = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm run sample:cluster stops what it started', () => {
  it('on its own failure: a PORT it cannot listen on', async () => {
    const port = await freePort();
    blocker = createServer().listen(port, '127.0.0.1');
    await once(blocker, 'listening');
    const { cluster, output } = launch(port);
    const [code] = await once(cluster, 'exit');
    expect(code).toBe(1);
    expect(output()).toContain('[cluster] could not start');
    // Redis and both instances had started; none is left.
    const pids = startedPids(output());
    expect(pids).toHaveLength(3);
    expect(pids.filter(alive)).toEqual([]);
  }, 90_000);

  it('when its redis-server dies', async () => {
    const { cluster, output } = launch(await freePort());
    expect(await waitFor(() => output().includes('Help desk cluster is running'), 60_000)).toBe(
      true,
    );
    const pids = startedPids(output());
    const redisPid = Number(output().match(/redis-server started \(pid (\d+)\)/)![1]);
    const exited = once(cluster, 'exit');
    process.kill(redisPid, 'SIGKILL');
    const [code] = await exited;
    expect(code).toBe(1);
    expect(output()).toContain('redis-server exited (SIGKILL); stopping.');
    expect(pids.filter(alive)).toEqual([]);
  }, 90_000);
});
