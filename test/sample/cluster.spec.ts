/**
 * `npm run sample:cluster` as a user runs it (from source here, through tsx): Redis, two
 * instances and the round-robin proxy start; the official SDK 1.x client runs the help desk's
 * export as a task through the proxy, its polls landing on both instances; another tenant is
 * told the task does not exist. Then an instance is killed with SIGKILL mid-run: the proxy keeps
 * answering, the launcher starts the instance again, a task stored in Redis outlives the
 * instance that ran it, and a task whose handler died with its instance fails with a clear
 * status once its lease runs out. Ctrl-C stops every process, by PID, Redis included.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { accepts, freePort } from '../../sample/ports.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { rpc } from '../fixtures/mcp-http.js';
import { waitFor } from '../fixtures/timing.js';
import { alive } from '../fixtures/processes.js';

const [alice, , gina] = SEEDED_USERS;

let cluster: ChildProcess;
let output = '';
let base: string;
let mcpUrl: string;
/** Each instance's MCP URL, by number (1, 2). */
let instanceUrls: string[];
/** Every PID the cluster printed: the launcher, redis-server, the instances (restarts too). */
const pids = new Set<number>();
const dir = mkdtempSync(join(tmpdir(), 'helpdesk-cluster-'));

async function client(key: string): Promise<Client> {
  const connected = new Client({ name: 'cluster-test', version: '1.0.0' });
  await connected.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return connected;
}

/** A 2025-era JSON-RPC request as alice, to the proxy or to one instance. */
const post = (url: string, method: string, params: Record<string, unknown>) =>
  rpc(url, 'legacy', method, params, { authorization: `Bearer ${alice.apiKey}` });

/** The PID the launcher last printed for an instance (at startup, or when it came back). */
function instancePid(number: number): number {
  const back = [...output.matchAll(new RegExp(`instance ${number} is back \\(pid (\\d+)\\)`, 'g'))];
  if (back.length > 0) return Number(back.at(-1)![1]);
  const started = output.match(
    /Processes {6}launcher \d+, redis-server \d+, instances (\d+) (\d+)/,
  )!;
  return Number(started[number]);
}

/** Kills an instance with SIGKILL; resolves once the launcher has started it again. */
async function killInstance(number: number): Promise<void> {
  const pid = instancePid(number);
  const backBefore = output.split(`instance ${number} is back`).length;
  process.kill(pid, 'SIGKILL');
  expect(await waitFor(() => !alive(pid), 10_000)).toBe(true);
  expect(
    await waitFor(() => output.split(`instance ${number} is back`).length > backBefore, 60_000),
  ).toBe(true);
  pids.add(instancePid(number));
}

beforeAll(async () => {
  const port = await freePort();
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  cluster = spawn(process.execPath, ['--import', 'tsx', 'sample/cluster/main.ts'], {
    cwd: process.cwd(),
    env: {
      ...env,
      PORT: String(port),
      HELPDESK_DB: join(dir, 'helpdesk.db'),
      HELPDESK_EXPORT_PAUSE_MS: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cluster.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  cluster.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  expect(await waitFor(() => output.includes('Help desk cluster is running'), 60_000)).toBe(true);
  base = `http://127.0.0.1:${port}`;
  mcpUrl = `${base}/mcp`;
  const [, ...ports] = output.match(
    /Instances {6}http:\/\/127\.0\.0\.1:(\d+) {2}http:\/\/127\.0\.0\.1:(\d+)/,
  )!;
  instanceUrls = ['', ...ports.map((instancePort) => `http://127.0.0.1:${instancePort}/mcp`)];
  const started = output.match(/Processes {6}launcher (\d+), redis-server (\d+), instances (.+)/)!;
  for (const pid of [started[1], started[2], ...started[3].trim().split(' ')]) {
    pids.add(Number(pid));
  }
}, 90_000);
afterAll(async () => {
  if (cluster?.exitCode === null) cluster.kill('SIGKILL');
  // Whatever a failed test left behind.
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run sample:cluster', () => {
  it('prints what it started: the proxy, two instances, their readiness, Redis, the PIDs', () => {
    expect(output).toContain(`MCP endpoint   ${mcpUrl}`);
    expect(output).toMatch(/Instances {6}http:\/\/127\.0\.0\.1:\d+ {2}http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/Readiness {6}http:\/\/127\.0\.0\.1:\d+\/health\/ready {2}/);
    expect(output).toMatch(/Redis {10}redis:\/\/127\.0\.0\.1:\d+/);
    expect(pids.size).toBe(4);
    expect(pids.has(cluster.pid!)).toBe(true);
  });

  it('serves each instance’s readiness, and the proxy counts both ready', async () => {
    for (const url of instanceUrls.slice(1)) {
      const ready = await fetch(url.replace('/mcp', '/health/ready'));
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as any).details.toolwright).toEqual({
        status: 'up',
        draining: false,
        redis: 'up',
      });
    }
    expect(output).toContain('instance 1 is ready');
    expect(output).toContain('instance 2 is ready');
  });

  it('runs the export as a task through the proxy, polled on both instances', async () => {
    const acme = await client(alice.apiKey);
    const globex = await client(gina.apiKey);
    try {
      const statuses: string[] = [];
      let taskId = '';
      let result: any;
      for await (const message of acme.experimental.tasks.callToolStream(
        { name: 'helpdesk_export_tickets', arguments: {} },
        CallToolResultSchema,
        { task: { ttl: 600_000 } },
      )) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'taskStatus') statuses.push(message.task.status);
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(statuses.at(-1)).toBe('completed');
      expect(result.structuredContent).toMatchObject({
        count: expect.any(Number),
        csv: expect.stringMatching(/^id,status,priority,assignee,title\n/),
      });
      // Whichever instance answers, the task is the same; for another tenant it does not exist.
      for (let i = 0; i < 2; i++) {
        expect((await acme.experimental.tasks.getTask(taskId)).status).toBe('completed');
      }
      await expect(globex.experimental.tasks.getTask(taskId)).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await acme.close();
      await globex.close();
    }
  });

  it('keeps answering through the proxy while an instance is killed; a task in Redis outlives it', async () => {
    // A task made and finished on instance 1.
    const created = await post(instanceUrls[1], 'tools/call', {
      name: 'helpdesk_export_tickets',
      arguments: {},
      task: { ttl: 600_000 },
    });
    const { taskId } = created.result.task;
    expect(
      await waitFor(
        async () =>
          (await post(instanceUrls[1], 'tasks/get', { taskId })).result?.status === 'completed',
        30_000,
      ),
    ).toBe(true);

    // Requests through the proxy, one after the other, while instance 1 is killed and restarted.
    let killed = false;
    const answers: Array<{ result?: any; error?: any }> = [];
    const traffic = (async () => {
      while (!killed || answers.length < 20) {
        answers.push(await post(mcpUrl, 'tools/list', {}));
      }
    })();
    await waitFor(() => answers.length >= 5);
    await killInstance(1);
    killed = true;
    await traffic;
    // Every one was answered, none with an error: the proxy went past the dead instance.
    expect(answers.filter((answer) => !Array.isArray(answer.result?.tools))).toEqual([]);

    // The task outlived the instance that ran it: its result is in Redis, any instance reads it.
    for (let i = 0; i < 2; i++) {
      expect((await post(mcpUrl, 'tasks/get', { taskId })).result.status).toBe('completed');
    }
    const result = await post(mcpUrl, 'tasks/result', { taskId });
    expect(result.result.structuredContent).toMatchObject({ count: expect.any(Number) });
  }, 120_000);

  it('fails a task whose handler died with its instance, once its lease runs out', async () => {
    // A task running on instance 2 when instance 2 is killed: nothing can finish it.
    const created = await post(instanceUrls[2], 'tools/call', {
      name: 'helpdesk_export_tickets',
      arguments: {},
      task: { ttl: 600_000 },
    });
    const { taskId } = created.result.task;
    await killInstance(2);
    // Polled through the proxy: working while the dead instance's lease holds, then failed.
    let task: any;
    expect(
      await waitFor(
        async () =>
          (task = (await post(mcpUrl, 'tasks/get', { taskId })).result).status !== 'working',
        60_000,
      ),
    ).toBe(true);
    expect(task).toMatchObject({
      status: 'failed',
      statusMessage: 'The instance running the task stopped before it finished.',
    });
    expect((await post(mcpUrl, 'tasks/result', { taskId })).error).toEqual({
      code: -32603,
      message: 'The instance running the task stopped before it finished.',
    });
  }, 120_000);

  it('stops every process on Ctrl-C, restarted instances included', async () => {
    const redisUrl = output.match(/redis:\/\/127\.0\.0\.1:(\d+)/)!;
    expect(pids.size).toBe(6);
    const exited = once(cluster, 'exit');
    cluster.kill('SIGINT');
    const [code] = await exited;
    expect(code).toBe(0);
    for (const pid of pids) expect({ pid, alive: alive(pid) }).toEqual({ pid, alive: false });
    // Redis is gone: nothing accepts connections on its port any more.
    expect(await accepts(Number(redisUrl[1]))).toBe(false);
  });
});
