import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent } from 'node:http';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema as CallToolResultSchemaV1,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { defineRuntimeTool, ToolsModule } from '../../lib/index.js';
import {
  GENERATIONS,
  connectClient,
  expectCancelled,
  mcpTools,
  newSeen,
  recordingHooks,
  tenantFromHeader,
  type Generation,
  type McpTestClient,
  type Seen,
} from '../mcp/support.js';
import { TestApps } from '../fixtures/apps.js';
import { RoundRobinProxy } from '../../sample/cluster/round-robin-proxy.js';
import { redisClient, sharedRedis } from '../fixtures/redis.js';
import { eraHeaders, MODERN_META, raw, rpc as rpcOf } from '../fixtures/mcp-http.js';
import { waitFor } from '../fixtures/timing.js';
import { RedisInstanceBus, RedisTaskStore } from '../../lib/redis/index.js';
import type { Redis } from 'ioredis';

/**
 * Scale-out: two stateless app instances (one on Express, one on Fastify) behind a round-robin
 * HTTP proxy written here, sharing a real Redis as their instance bus. One client of each SDK
 * generation sends interleaved requests through the proxy; every answer is the same whichever
 * instance gave it, and both instances serve. A 2025-era client's cancellation and answers,
 * POSTs of their own that land on the other instance, reach the call over the bus.
 */

/**
 * A bus per instance, each on its own Redis connection as separate processes would have, all
 * on the run's Redis under a prefix of this suite's own.
 */
class InstanceBuses {
  private readonly clients: Redis[] = [];
  private release?: () => Promise<void>;
  private url?: string;
  private readonly prefix = `scale-out-${process.pid}-${Math.random().toString(36).slice(2)}:`;

  async start(): Promise<void> {
    const redis = await sharedRedis();
    this.url = redis.url;
    this.release = redis.release;
  }

  bus(): RedisInstanceBus {
    const client = redisClient(this.url!);
    this.clients.push(client);
    return new RedisInstanceBus({ redis: client, prefix: this.prefix });
  }

  taskStore(): RedisTaskStore {
    const client = redisClient(this.url!);
    this.clients.push(client);
    return new RedisTaskStore({ redis: client, prefix: this.prefix });
  }

  async stop(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.quit()));
    await this.release?.();
  }
}

/** What a result says, without what legitimately varies (nothing should). */
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('two instances behind a round-robin proxy', () => {
  const apps = new TestApps();
  const buses = new InstanceBuses();
  const seen: Seen[] = [newSeen(), newSeen()];
  let proxy: RoundRobinProxy;
  let mcpUrl: string;

  beforeAll(async () => {
    await buses.start();
    const instance = (i: number) => ({
      imports: [
        ToolsModule.forRoot({
          registry: mcpTools(seen[i]),
          context: tenantFromHeader,
          hooks: [recordingHooks(seen[i])],
          // One caller, whose 2025-era cancellation must find its call on the other instance.
          mcp: { bus: buses.bus(), identify: () => 'operator' },
        }),
      ],
    });
    const [a, b] = await Promise.all([
      apps.listen(instance(0), 'express'),
      apps.listen(instance(1), 'fastify'),
    ]);
    proxy = new RoundRobinProxy([a.port, b.port]);
    mcpUrl = `${await proxy.listen()}/mcp`;
  });
  afterAll(async () => {
    await proxy?.close();
    await apps.closeAll();
    await buses.stop();
  });

  /** The operations each client repeats; `tag` makes each call's arguments its own. */
  const operations = {
    list: (c: McpTestClient) => c.listTools(),
    echo: (c: McpTestClient) => c.callTool('tenancy_echo', { text: 'same everywhere' }),
    square: (c: McpTestClient) => c.callTool('math_square', { n: 9 }),
    plain: (c: McpTestClient) => c.callTool('items_delete', { id: 'i-1' }),
    card: (c: McpTestClient) => c.callTool('contacts_card', { name: 'Ada' }),
    invalid: (c: McpTestClient) => c.callTool('tenancy_echo', { text: 5 }),
    conflict: (c: McpTestClient) => c.callTool('ops_reserve', { seat: 'A1' }),
    crash: (c: McpTestClient) => c.callTool('ops_boom', {}),
    unknown: (c: McpTestClient) =>
      c.callTool('tenancy_ech', {}).then(
        () => 'resolved',
        (error: { code?: number; message?: string }) => ({
          code: error.code,
          message: error.message,
        }),
      ),
    progress: async (c: McpTestClient) => {
      const updates: unknown[] = [];
      const result = await c.callTool(
        'jobs_run',
        { steps: 3 },
        { onprogress: (u) => updates.push(u) },
      );
      return { result, updates };
    },
  } as const;
  type Operation = keyof typeof operations;

  it('serves interleaved requests of both generations with identical results from both instances', async () => {
    const clients = await Promise.all(
      GENERATIONS.map((generation) => connectClient(generation, mcpUrl, { 'x-tenant-id': 'acme' })),
    );
    try {
      const ROUNDS = 6;
      const results = new Map<string, unknown[]>();
      for (let round = 0; round < ROUNDS; round++) {
        // Both clients at once, each running every operation at once: the proxy interleaves them.
        await Promise.all(
          clients.flatMap((client) =>
            (Object.keys(operations) as Operation[]).map(async (operation) => {
              const key = `${client.generation}/${operation}`;
              const value = normalize(await operations[operation](client));
              results.set(key, [...(results.get(key) ?? []), value]);
            }),
          ),
        );
        // One more request shifts the round robin by one, so that next round every operation
        // lands on the other instance.
        await clients[round % 2].listTools();
      }
      // Every repetition of an operation got the same answer, whichever instance gave it.
      for (const [key, values] of results) {
        expect({ key, distinct: new Set(values.map((v) => JSON.stringify(v))).size }).toEqual({
          key,
          distinct: 1,
        });
      }
      const first = (generation: Generation, operation: Operation) =>
        results.get(`${generation}/${operation}`)![0] as any;
      for (const generation of GENERATIONS) {
        expect(first(generation, 'echo').structuredContent).toEqual({
          text: 'same everywhere',
          tenantId: 'acme',
        });
        expect(first(generation, 'plain').content).toEqual([
          { type: 'text', text: '{"deleted":"i-1"}' },
        ]);
        expect(first(generation, 'invalid').isError).toBe(true);
        expect(JSON.parse(first(generation, 'crash').content[0].text)).toEqual({
          error: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error',
          retryable: false,
        });
        expect(first(generation, 'unknown')).toMatchObject({ code: -32602 });
        expect(first(generation, 'progress').updates).toHaveLength(3);
        expect(first(generation, 'list').tools.map((t: { name: string }) => t.name)).toContain(
          'jobs_wait',
        );
      }
      // The generations differ only where the eras do (a non-object output is wrapped on 2025).
      expect(first('v1 (2025)', 'square').structuredContent).toEqual({ result: 81 });
      expect(first('v2 (2026-07-28)', 'square').structuredContent).toBe(81);

      // Both instances served requests, and ran tools for both generations' calls.
      expect(proxy.served.every((count) => count > 5)).toBe(true);
      for (const instance of seen) {
        expect(instance.runs.tenancy_echo ?? 0).toBeGreaterThan(0);
        const ran = new Set(instance.after.map((entry) => entry.name));
        expect([...ran].sort()).toEqual(
          expect.arrayContaining([
            'contacts_card',
            'items_delete',
            'jobs_run',
            'math_square',
            'ops_boom',
            'tenancy_echo',
          ]),
        );
      }
      const total = seen.reduce((sum, instance) => sum + (instance.runs.tenancy_echo ?? 0), 0);
      expect(total).toBe(ROUNDS * GENERATIONS.length);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  /**
   * Starts a `jobs_wait` call through the proxy, waits until an instance runs it, aborts it on
   * the client, and reports whether (and how) an instance's handler saw the abort in time.
   */
  async function cancelThroughProxy(generation: Generation, giveUpMs: number, waitMs: number) {
    const client = await connectClient(generation, mcpUrl);
    try {
      const key = `proxy-${generation}-${Math.random()}`;
      const controller = new AbortController();
      const call = client.callTool('jobs_wait', { key, giveUpMs }, { signal: controller.signal });
      const ran = () => seen.some((instance) => instance.runs[`jobs_wait:${key}`] === 1);
      expect(await waitFor(ran)).toBe(true);
      const reason = new Error('user pressed stop');
      controller.abort(reason);
      await expectCancelled(call, generation, reason);
      const aborted = () => seen.find((instance) => instance.aborts[key])?.aborts[key];
      expect(await waitFor(() => aborted() !== undefined, waitMs)).toBe(true);
      return aborted();
    } finally {
      await client.close();
    }
  }

  it('cancels a 2026-07-28 call through the proxy: the client closes the request, the handler stops', async () => {
    expect(await cancelThroughProxy('v2 (2026-07-28)', 3000, 2000)).toEqual({
      aborted: true,
      reason: expect.objectContaining({ code: 'REQUEST_ABORTED' }),
    });
  });

  // A 2025-era client cancels with a separate `notifications/cancelled` POST and keeps its
  // request open. Behind a round-robin proxy that POST reaches the other instance, which has no
  // such call: it passes the cancellation on over the bus, and the instance running the call
  // aborts its handler.
  it('cancels a 2025 call through the proxy: the notification lands on the other instance, the bus carries it', async () => {
    expect(await cancelThroughProxy('v1 (2025)', 3000, 2000)).toEqual({
      aborted: true,
      reason: expect.objectContaining({ name: 'ToolError', code: 'REQUEST_ABORTED' }),
    });
  });
});

/**
 * Tools that ask, on two instances sharing the `requestState` key behind the round-robin proxy:
 * a 2026-07-28 call's rounds land on both instances and the answers travel in the state; a 2025
 * client's answer is a POST of its own, which lands on the other instance.
 */
describe('tools that ask, behind a round-robin proxy', () => {
  const apps = new TestApps();
  const buses = new InstanceBuses();
  const Priority = z.object({ priority: z.enum(['low', 'normal', 'high']) });
  const runs: number[] = [0, 0];
  let proxy: RoundRobinProxy;
  let mcpUrl: string;

  beforeAll(async () => {
    await buses.start();
    const instance = (i: number) => ({
      imports: [
        ToolsModule.forRoot({
          registry: [
            defineRuntimeTool({
              description: 'Close a ticket once the user confirms, then ask a priority',
              identity: { serviceName: 'desk', action: 'close', method: 'POST' },
              input: z.object({ id: z.string() }),
              asks: { confirm: true, elicit: [Priority] },
              handler: async ({ input, confirm, elicit }) => {
                runs[i]++;
                if (!(await confirm(`Close ${input.id}?`))) return { closed: false };
                const answer = await elicit({ message: 'Follow-up priority?', schema: Priority });
                return {
                  closed: true,
                  priority: answer.action === 'accept' && answer.content.priority,
                };
              },
            }),
          ],
          mcp: {
            requestState: { key: 'one key for every instance of the desk', ttlSeconds: 1 },
            bus: buses.bus(),
            // One caller, whose 2025-era declaration and answers must find its call.
            identify: () => 'operator',
          },
        }),
      ],
    });
    const [a, b] = await Promise.all([
      apps.listen(instance(0), 'express'),
      apps.listen(instance(1), 'fastify'),
    ]);
    proxy = new RoundRobinProxy([a.port, b.port]);
    mcpUrl = `${await proxy.listen()}/mcp`;
  });
  afterAll(async () => {
    await proxy?.close();
    await apps.closeAll();
    await buses.stop();
  });

  it('takes the rounds of a 2026-07-28 call on either instance, the answers carried in the state', async () => {
    const client = new ClientV2(
      { name: 'desk', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const answers = [{ action: 'accept' }, { action: 'accept', content: { priority: 'high' } }];
    client.setRequestHandler('elicitation/create', async () => answers.shift() as never);
    await client.connect(new TransportV2(new URL(mcpUrl)));
    const result = await client.callTool({ name: 'desk_close', arguments: { id: 'T-1' } });
    await client.close();
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({
      closed: true,
      priority: 'high',
    });
    // Three rounds: the first question, the second, the answer; both instances ran the handler.
    expect(runs[0] + runs[1]).toBe(3);
    expect(runs.every((count) => count > 0)).toBe(true);
  });

  // A 2025-era client declares its capabilities in `initialize` and answers a question with a
  // POST of its own. Behind a round-robin proxy those requests reach other instances than the
  // call: the declaration is kept on the bus for every instance, and the answer is passed on to
  // the instance that asked.
  it('asks a 2025 client through the proxy: its declaration and its answer cross over the bus', async () => {
    const client = new ClientV1(
      { name: 'desk', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const answers = [{ action: 'accept' }, { action: 'accept', content: { priority: 'low' } }];
    client.setRequestHandler(ElicitRequestSchema, async () => answers.shift() as never);
    await client.connect(new TransportV1(new URL(mcpUrl)));
    const before = runs[0] + runs[1];
    try {
      const result = await client.callTool({ name: 'desk_close', arguments: { id: 'T-2' } });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual({
        closed: true,
        priority: 'low',
      });
    } finally {
      await client.close();
    }
    // One run, on one instance: both answers reached it, whichever instance they landed on.
    expect(runs[0] + runs[1] - before).toBe(1);
    expect(answers).toEqual([]);
  });
});

/**
 * Tasks on three instances behind the round-robin proxy, sharing one Redis as task store and
 * bus: a task started on one instance is polled on the others and cancelled from another, and
 * the handler stops where it runs; a task's result is answered wherever the poll lands; and
 * 1,000 tasks created at once over two instances are each stored, run and answered once.
 */
describe('tasks on three instances sharing one Redis', () => {
  const apps = new TestApps();
  const buses = new InstanceBuses();
  const runs: Array<Map<string, number>> = [new Map(), new Map(), new Map()];
  const aborted = new Map<string, unknown>();
  const gates = new Map<string, () => void>();
  let proxy: RoundRobinProxy;
  let mcpUrl: string;
  let ports: number[];

  beforeAll(async () => {
    await buses.start();
    const instance = (i: number) => ({
      imports: [
        ToolsModule.forRoot({
          registry: [
            defineRuntimeTool({
              description: 'Export the tickets of a tenant',
              identity: { serviceName: 'reports', action: 'export', method: 'POST' },
              input: z.object({ key: z.string(), hold: z.boolean().optional() }),
              output: z.object({ key: z.string(), instance: z.number() }),
              task: 'optional',
              handler: async ({ input, signal }) => {
                runs[i].set(input.key, (runs[i].get(input.key) ?? 0) + 1);
                if (input.hold) {
                  await new Promise<void>((resolve) => {
                    gates.set(input.key, resolve);
                    signal.addEventListener(
                      'abort',
                      () => {
                        aborted.set(input.key, i);
                        resolve();
                      },
                      { once: true },
                    );
                  });
                }
                return { key: input.key, instance: i };
              },
            }),
          ],
          mcp: {
            bus: buses.bus(),
            // The 1,000 tasks created at once below are one caller's, all live together.
            tasks: { store: buses.taskStore(), pollIntervalMs: 20, maxLiveTasks: 1_000 },
            // One caller, who owns every task, wherever it was created.
            identify: () => 'operator',
          },
        }),
      ],
    });
    const listening = await Promise.all([
      apps.listen(instance(0), 'express'),
      apps.listen(instance(1), 'fastify'),
      apps.listen(instance(2), 'express'),
    ]);
    ports = listening.map((app) => app.port);
    proxy = new RoundRobinProxy(ports);
    mcpUrl = `${await proxy.listen()}/mcp`;
  });
  afterAll(async () => {
    for (const release of gates.values()) release();
    await proxy?.close();
    await apps.closeAll();
    await buses.stop();
  });

  const TaskHandle = z.object({ task: z.looseObject({ taskId: z.string() }) });

  async function connect(): Promise<ClientV1> {
    const client = new ClientV1({ name: 'reports', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(mcpUrl)));
    return client;
  }

  /** Which instance ran the key, once one did. */
  const ranOn = (key: string) => runs.findIndex((ran) => ran.has(key));

  it('starts a task on one instance, polls it on the others, and cancels it from another', async () => {
    const client = await connect();
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reports_export', arguments: { key: 'held', hold: true }, task: {} },
        },
        TaskHandle,
      );
      const { taskId } = created.task;
      expect(await waitFor(() => ranOn('held') >= 0)).toBe(true);
      const served = [...proxy.served];
      // Three polls: the round robin sends them to each instance in turn.
      for (let i = 0; i < 3; i++) {
        expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
      }
      expect(proxy.served.map((count, i) => count - served[i])).toEqual([1, 1, 1]);
      await client.experimental.tasks.cancelTask(taskId);
      expect(await waitFor(() => aborted.has('held'))).toBe(true);
      expect(aborted.get('held')).toBe(ranOn('held'));
      for (let i = 0; i < 3; i++) {
        expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
      }
      expect(runs.reduce((sum, ran) => sum + (ran.get('held') ?? 0), 0)).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers a task’s result wherever the request lands, woken when it ends elsewhere', async () => {
    const client = await connect();
    try {
      const created = await client.request(
        {
          method: 'tools/call',
          params: { name: 'reports_export', arguments: { key: 'awaited', hold: true }, task: {} },
        },
        TaskHandle,
      );
      expect(await waitFor(() => gates.has('awaited'))).toBe(true);
      const result = client.experimental.tasks.getTaskResult(
        created.task.taskId,
        CallToolResultSchemaV1,
      );
      gates.get('awaited')!();
      expect((await result).structuredContent).toEqual({
        key: 'awaited',
        instance: ranOn('awaited'),
      });
    } finally {
      await client.close();
    }
  });

  it('runs a 2026-07-28 task (the tasks extension) across the instances: created on one, polled and cancelled on others', async () => {
    const rpc = (method: string, params: Record<string, unknown>) =>
      rpcOf(mcpUrl, 'modern', method, {
        ...params,
        _meta: {
          ...MODERN_META,
          'io.modelcontextprotocol/clientCapabilities': {
            extensions: { 'io.modelcontextprotocol/tasks': {} },
          },
        },
      });
    const done = await rpc('tools/call', { name: 'reports_export', arguments: { key: 'modern' } });
    expect(done.result).toMatchObject({ resultType: 'task', status: 'working' });
    let task: any;
    expect(
      await waitFor(async () => {
        task = (await rpc('tasks/get', { taskId: done.result.taskId })).result;
        return task.status === 'completed';
      }),
    ).toBe(true);
    expect(task.result.structuredContent).toEqual({ key: 'modern', instance: ranOn('modern') });

    const held = await rpc('tools/call', {
      name: 'reports_export',
      arguments: { key: 'modern-held', hold: true },
    });
    expect(await waitFor(() => ranOn('modern-held') >= 0)).toBe(true);
    await rpc('tasks/cancel', { taskId: held.result.taskId });
    expect(await waitFor(() => aborted.get('modern-held') === ranOn('modern-held'))).toBe(true);
    for (let i = 0; i < 3; i++) {
      expect((await rpc('tasks/get', { taskId: held.result.taskId })).result.status).toBe(
        'cancelled',
      );
    }
  });

  it('creates 1,000 tasks at once over two instances: each stored, run and answered once', async () => {
    const COUNT = 1000;
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    /** A 2025-era request to one instance; resolves to the answer's last JSON-RPC message. */
    const post = async (port: number, body: unknown): Promise<any> => {
      const answer = await raw(`http://127.0.0.1:${port}/mcp`, {
        headers: eraHeaders('legacy'),
        body: JSON.stringify(body),
        agent,
        timeoutMs: 30_000,
      });
      return answer.messages?.at(-1);
    };
    try {
      const keys = Array.from({ length: COUNT }, (_, i) => `bulk-${i}`);
      const created = await Promise.all(
        keys.map((key, i) =>
          post(ports[i % 2], {
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'reports_export', arguments: { key }, task: {} },
          }),
        ),
      );
      const ids = created.map((answer) => answer.result.task.taskId as string);
      expect(new Set(ids).size).toBe(COUNT);
      // Each result asked of the other instance than the one that created it.
      const results = await Promise.all(
        ids.map((taskId, i) =>
          post(ports[(i + 1) % 2], {
            jsonrpc: '2.0',
            id: i,
            method: 'tasks/result',
            params: { taskId },
          }),
        ),
      );
      // An answer without a result is shown whole: which error it was.
      expect(results.map((answer) => answer?.result?.structuredContent.key ?? answer)).toEqual(
        keys,
      );
      const ranTimes = keys.map((key) => runs.reduce((sum, ran) => sum + (ran.get(key) ?? 0), 0));
      expect(ranTimes.every((times) => times === 1)).toBe(true);
      expect(runs[0].size > 0 && runs[1].size > 0).toBe(true);
      // Listed once each, a page at a time, from the third instance.
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await post(ports[2], {
          jsonrpc: '2.0',
          id: 'list',
          method: 'tasks/list',
          params: cursor === undefined ? {} : { cursor },
        });
        listed.push(...page.result.tasks.map((task: { taskId: string }) => task.taskId));
        cursor = page.result.nextCursor;
      } while (cursor !== undefined);
      expect(new Set(listed).size).toBe(listed.length);
      expect(ids.every((taskId) => listed.includes(taskId))).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});
