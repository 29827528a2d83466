/**
 * `npm run sample:cluster` as a user runs it (from source here, through tsx): Redis, two
 * instances and the round-robin proxy start; the official SDK 1.x client runs the help desk's
 * export as a task through the proxy, its polls landing on both instances; another tenant is
 * told the task does not exist; Ctrl-C stops every process, Redis included.
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
import { waitFor } from '../fixtures/timing.js';

const [alice, , gina] = SEEDED_USERS;

let cluster: ChildProcess;
let output = '';
let mcpUrl: string;
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
  mcpUrl = `http://127.0.0.1:${port}/mcp`;
}, 90_000);
afterAll(async () => {
  if (cluster?.exitCode === null) cluster.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run sample:cluster', () => {
  it('prints what it started: the proxy, two instances, Redis', () => {
    expect(output).toContain(`MCP endpoint   ${mcpUrl}`);
    expect(output).toMatch(/Instances {6}http:\/\/127\.0\.0\.1:\d+ {2}http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/Redis {10}redis:\/\/127\.0\.0\.1:\d+/);
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

  it('stops every process on Ctrl-C', async () => {
    const redisUrl = output.match(/redis:\/\/127\.0\.0\.1:(\d+)/)!;
    const exited = once(cluster, 'exit');
    cluster.kill('SIGINT');
    const [code] = await exited;
    expect(code).toBe(0);
    // Redis is gone: nothing accepts connections on its port any more.
    expect(await accepts(Number(redisUrl[1]))).toBe(false);
  });
});
