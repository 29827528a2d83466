/**
 * An instance killed mid-task: the task it ran stays `working` while its lease holds, then any
 * other instance answers it `failed` — no task says `working` for ever. The instance runs in a
 * process of its own (test/fixtures/task-instance.ts), killed with SIGKILL; the other instance
 * shares its Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { createMcpHttpHandler, type McpRequestListener } from '../../lib/mcp/index.js';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import { closeServer, identifyByAuthorization, rpc } from '../fixtures/mcp-http.js';
import { redisClient, sharedRedis } from '../fixtures/redis.js';
import { waitFor } from '../fixtures/timing.js';

const PREFIX = `task-lease-${process.pid}-${Date.now()}:`;
const LEASE_MS = 400;

let release: () => Promise<void>;
let redisUrl: string;
let client: Redis;
let child: ChildProcess | undefined;
let survivor: Server;
let listener: McpRequestListener;
let survivorUrl: string;

beforeAll(async () => {
  ({ url: redisUrl, release } = await sharedRedis());
  client = redisClient(redisUrl);
  // The surviving instance declares the same tool; it never runs the killed one's task.
  const hang = defineRuntimeTool({
    description: 'Run until stopped',
    identity: { serviceName: 'reports', action: 'hang', method: 'POST' },
    input: z.object({}),
    task: 'optional',
    handler: () => ({}),
  });
  listener = createMcpHttpHandler(createToolInvoker([hang]), {
    identify: identifyByAuthorization,
    bus: new RedisInstanceBus({ redis: client, prefix: PREFIX }),
    tasks: { store: new RedisTaskStore({ redis: client, prefix: PREFIX }), leaseMs: LEASE_MS },
  });
  await listener.ready();
  survivor = createServer(listener);
  await new Promise<void>((resolve) => survivor.listen(0, '127.0.0.1', resolve));
  survivorUrl = `http://127.0.0.1:${(survivor.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await listener?.close({ graceMs: 0 });
  await closeServer(survivor);
  await client?.quit();
  await release?.();
});

/** Starts the instance that will be killed; resolves to its MCP URL. */
async function startDoomed(): Promise<string> {
  const { NODE_OPTIONS: _jestVmModules, ...env } = process.env;
  child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/task-instance.ts'], {
    cwd: process.cwd(),
    env: { ...env, REDIS_URL: redisUrl, PREFIX, LEASE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!.setEncoding('utf8'), 'data')) as [string];
  return `http://127.0.0.1:${JSON.parse(line).port}/mcp`;
}

const post = (url: string, method: string, params: Record<string, unknown>) =>
  rpc(url, 'legacy', method, params, { authorization: 'Bearer ops' });

describe('an instance killed mid-task', () => {
  it('leaves a task that fails once its lease runs out, wherever it is read', async () => {
    const doomed = await startDoomed();
    const created = await post(doomed, 'tools/call', {
      name: 'reports_hang',
      arguments: {},
      task: {},
    });
    const { taskId } = created.result.task;
    const read = () => post(survivorUrl, 'tasks/get', { taskId });
    expect((await read()).result.status).toBe('working');
    const killed = once(child!, 'exit');
    child!.kill('SIGKILL');
    await killed;
    // Still working while the lease it renewed last holds; then failed, and for good.
    let task: any;
    expect(await waitFor(async () => (task = (await read()).result).status !== 'working')).toBe(
      true,
    );
    expect(task).toMatchObject({
      status: 'failed',
      statusMessage: 'The instance running the task stopped before it finished.',
    });
    const result = await post(survivorUrl, 'tasks/result', { taskId });
    expect(result.error).toEqual({
      code: -32603,
      message: 'The instance running the task stopped before it finished.',
    });
    expect((await read()).result.status).toBe('failed');
  });
});
