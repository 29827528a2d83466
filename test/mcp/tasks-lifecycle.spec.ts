/**
 * A task's life on one instance: a shutdown with a task running drains the call (its handler
 * aborted when the grace ends) and the endpoint's close waits until the task's end is stored,
 * so no task a replica ran is left `working` until its lease runs out; and a task running here
 * is never failed for a lapsed lease, whatever its last renewal says (an instance that died is
 * in test/redis/task-lease.spec.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, InMemoryTaskStore } from '../../lib/core/index.js';
import type { TaskRecord } from '../../lib/core/task-store.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { McpTasks } from '../../lib/mcp/tasks.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { InMemoryInstanceBus } from '../../lib/core/instance-bus.js';
import { closeServer, eraHeaders } from '../fixtures/mcp-http.js';
import { waitFor } from '../fixtures/timing.js';

describe('a shutdown with a task running', () => {
  it('stores how the task ended before the endpoint closes', async () => {
    let started = false;
    const hang = defineRuntimeTool({
      description: 'Run until stopped',
      identity: { serviceName: 'reports', action: 'hang', method: 'POST' },
      input: z.object({}),
      task: 'optional',
      handler: ({ signal }) => {
        started = true;
        return new Promise((resolve) => signal.addEventListener('abort', resolve));
      },
    });
    // A store that takes its time to write a task's end, as Redis over a network does.
    const store = new (class extends InMemoryTaskStore {
      override async update(next: TaskRecord): Promise<boolean> {
        if (next.status !== 'working') await new Promise((resolve) => setTimeout(resolve, 100));
        return super.update(next);
      }
    })();
    const invoker = createToolInvoker([hang]);
    const listener = createMcpHttpHandler(invoker, {
      identify: () => 'operator',
      tasks: { store },
    });
    await listener.ready();
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: eraHeaders('legacy'),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'reports_hang', arguments: {}, task: {} },
        }),
      });
      const text = await response.text();
      const { taskId } = JSON.parse(text.split('data: ').at(-1)!).result.task;
      expect(await waitFor(() => started)).toBe(true);

      await invoker.close({ graceMs: 10 });
      await listener.close({ graceMs: 5_000 });
      const ended = await store.get(taskId);
      expect(ended?.status).toBe('failed');
      expect(JSON.stringify(ended?.result)).toContain('SERVICE_UNAVAILABLE');
    } finally {
      await closeServer(server);
    }
  });
});

describe('a task running here whose lease lapsed', () => {
  it('stays working: the instance running it is alive', async () => {
    // A store that keeps no renewal, as one that was too slow to take them.
    const store = new (class extends InMemoryTaskStore {
      override async renew(): Promise<boolean> {
        return true;
      }
    })();
    const tasks = new McpTasks({ store, leaseMs: 5 }, new InMemoryInstanceBus(), console);
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const task = await tasks.start('owner', 'reports_hang', undefined, {}, async () => {
      await running;
      return { status: 'completed', result: { content: [] } };
    });
    expect(await waitFor(async () => (await store.get(task.taskId))!.leaseUntil < Date.now())).toBe(
      true,
    );
    expect((await tasks.get('owner', task.taskId))?.status).toBe('working');
    release();
    expect(
      await waitFor(async () => (await tasks.get('owner', task.taskId))?.status === 'completed'),
    ).toBe(true);
  });
});

describe('task options that cannot work', () => {
  const report = defineRuntimeTool({
    description: 'Report (as a task)',
    identity: { serviceName: 'reports', action: 'report', method: 'GET' },
    input: z.object({}),
    task: 'optional',
    handler: () => ({}),
  });
  const endpoint = (tasks: Record<string, number>) => () =>
    createMcpHttpHandler(createToolInvoker([report]), { tasks });
  /** What `make` threw, to compare whole: its class and its message. */
  const thrownBy = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const configurationError = (message: string) =>
    expect.objectContaining({ name: 'ToolsConfigurationError', message });

  it.each(['ttlMs', 'maxTtlMs', 'pollIntervalMs', 'leaseMs'] as const)(
    'a %s that is not a positive whole number is refused when the endpoint is made',
    (option) => {
      expect(thrownBy(endpoint({ [option]: 0 }))).toEqual(
        configurationError(MCP_MESSAGES.taskNumber(option, 0, 'milliseconds')),
      );
      // The 2026-07-28 revision sends times as integers.
      expect(thrownBy(endpoint({ [option]: 1500.5 }))).toEqual(
        configurationError(MCP_MESSAGES.taskNumber(option, 1500.5, 'milliseconds')),
      );
    },
  );

  it('a limit that is not a positive whole number is refused when the endpoint is made', () => {
    expect(thrownBy(endpoint({ maxLiveTasks: 0 }))).toEqual(
      configurationError(MCP_MESSAGES.taskNumber('maxLiveTasks', 0, null)),
    );
    expect(thrownBy(endpoint({ maxResultBytes: -1 }))).toEqual(
      configurationError(MCP_MESSAGES.taskNumber('maxResultBytes', -1, 'bytes')),
    );
  });

  it('a default ttl longer than the most a client may ask for is refused', () => {
    expect(thrownBy(endpoint({ ttlMs: 7_200_000, maxTtlMs: 3_600_000 }))).toEqual(
      configurationError(MCP_MESSAGES.taskTtlAboveMax(7_200_000, 3_600_000)),
    );
    // Left out, the most follows a longer default.
    expect(endpoint({ ttlMs: 7_200_000 })).not.toThrow();
  });
});
