/**
 * A task's execution on its instance (lib/mcp/task-execution.ts), with stores that take their
 * time as Redis does: status writes keep only the latest (a handler that reports per row makes
 * a handful of writes, and its end is stored right after it returns), the lease is renewed
 * while a status write hangs, and nothing a task starts is left to reject unseen — a question
 * whose call was abandoned, a store that fails every write, a bus message that is not one.
 * The suite's environment fails a test on any unhandled rejection (test/process-guard.environment.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { z } from 'zod';
import type { ToolQuestion } from '../../lib/core/asking.js';
import { createToolInvoker, defineRuntimeTool, InMemoryTaskStore } from '../../lib/core/index.js';
import { InMemoryInstanceBus, type InstanceBus } from '../../lib/core/instance-bus.js';
import type { TaskRecord } from '../../lib/core/task-store.js';
import { createMcpHttpHandler } from '../../lib/mcp/index.js';
import { McpTasks, type TaskOutcome } from '../../lib/mcp/tasks.js';
import { closeServer, identifyByAuthorization, rpc } from '../fixtures/mcp-http.js';
import { deferred, waitFor } from '../fixtures/timing.js';

/**
 * A store whose every write takes a turn of the event loop, as a write over the network does,
 * and waits for `hold` first when there is one; it counts the writes and the renewals.
 */
class CountingStore extends InMemoryTaskStore {
  readonly updates: TaskRecord[] = [];
  renewals = 0;

  constructor(private readonly hold?: (next: TaskRecord) => Promise<void> | undefined) {
    super();
  }

  override async update(next: TaskRecord): Promise<boolean> {
    this.updates.push(next);
    await this.hold?.(next);
    await new Promise((resolve) => setImmediate(resolve));
    return super.update(next);
  }

  override async renew(task: TaskRecord, leaseUntil: number): Promise<boolean> {
    this.renewals++;
    return super.renew(task, leaseUntil);
  }
}

/** The endpoint's tasks, on their own: the errors they log are kept. */
function tasksOn(store: InMemoryTaskStore, options: { leaseMs?: number; bus?: InstanceBus } = {}) {
  const errors: string[] = [];
  const tasks = new McpTasks(
    { store, ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }) },
    options.bus ?? new InMemoryInstanceBus(),
    { error: (message: string) => void errors.push(message) },
  );
  return { tasks, errors };
}

const done: TaskOutcome = { status: 'completed', result: { content: [] } };

const question: ToolQuestion = {
  kind: 'confirm',
  message: 'Export every ticket?',
  call: { name: 'reports_export' } as ToolQuestion['call'],
};
const elicitation = (asked: ToolQuestion) => ({
  method: 'elicitation/create',
  params: { message: asked.message },
});

describe('status writes keep only the latest', () => {
  it('a handler that reports 20,000 times makes a handful of writes, the last report and the end among them', async () => {
    const rows = 20_000;
    const exportRows = defineRuntimeTool({
      description: 'Export every row, reporting each one',
      identity: { serviceName: 'reports', action: 'rows', method: 'POST' },
      input: z.object({}),
      task: 'optional',
      handler: ({ reportProgress }) => {
        for (let row = 1; row <= rows; row++) {
          reportProgress({ progress: row, total: rows, message: `Row ${row}` });
        }
        return { rows };
      },
    });
    const store = new CountingStore();
    const listener = createMcpHttpHandler(createToolInvoker([exportRows]), {
      identify: identifyByAuthorization,
      tasks: { store },
    });
    await listener.ready();
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    try {
      const headers = { authorization: 'Bearer ops' };
      const created = await rpc(
        url,
        'legacy',
        'tools/call',
        { name: 'reports_rows', arguments: {}, task: {} },
        headers,
      );
      const { taskId } = created.result.task;
      const result = await rpc(url, 'legacy', 'tasks/result', { taskId }, headers);
      expect(JSON.parse(result.result.content[0].text)).toEqual({ rows });

      expect(store.updates.length).toBeLessThanOrEqual(4);
      expect(store.updates.at(-1)).toMatchObject({
        status: 'completed',
        statusMessage: `Row ${rows}`,
      });
    } finally {
      await listener.close({ graceMs: 0 });
      await closeServer(server);
    }
  });

  it('a change made while a write is in flight is laid over the pending one, in order', async () => {
    const store = new CountingStore();
    const { tasks } = tasksOn(store);
    const task = await tasks.start('owner', 'reports_export', undefined, {}, async ({ report }) => {
      report('Reading');
      report('Counting');
      report('Writing');
      return done;
    });
    expect(await waitFor(async () => (await store.get(task.taskId))?.status === 'completed')).toBe(
      true,
    );
    expect(store.updates.map(({ status, statusMessage }) => [status, statusMessage])).toEqual([
      ['working', 'Reading'],
      ['completed', 'Writing'],
    ]);
  });
});

describe('the lease', () => {
  it('is renewed while a status write hangs: a healthy task is never left to lapse', async () => {
    const stuck = deferred<void>();
    const store = new CountingStore((next) =>
      next.status === 'working' ? stuck.promise : undefined,
    );
    const { tasks } = tasksOn(store, { leaseMs: 30 });
    const finish = deferred<void>();
    const task = await tasks.start('owner', 'reports_export', undefined, {}, async ({ report }) => {
      report('Reading');
      await finish.promise;
      return done;
    });
    expect(await waitFor(() => store.updates.length === 1)).toBe(true);
    // The status write hangs; the lease goes out regardless, more than once.
    expect(await waitFor(() => store.renewals >= 2)).toBe(true);
    expect(store.updates).toHaveLength(1);
    expect((await store.get(task.taskId))!.leaseUntil).toBeGreaterThan(task.leaseUntil);
    stuck.resolve();
    finish.resolve();
    expect(await waitFor(async () => (await store.get(task.taskId))?.status === 'completed')).toBe(
      true,
    );
  });
});

describe('nothing a task starts rejects unseen', () => {
  it('a question asked when its call was abandoned already fails the ask, not the process', async () => {
    const store = new CountingStore();
    const { tasks } = tasksOn(store);
    const asked = deferred<unknown>();
    await tasks.start('owner', 'reports_export', undefined, {}, async (running) => {
      const ask = tasks.asker(running.task, elicitation);
      const abandoned = new AbortController();
      abandoned.abort(new Error('The call timed out.'));
      asked.resolve(
        await Promise.resolve(ask(question, { signal: abandoned.signal })).catch((e) => e),
      );
      return done;
    });
    expect(await asked.promise).toEqual(new Error('The call timed out.'));
    // A turn of the event loop, for a rejection left unhandled to surface.
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('a call abandoned while its question is being written: the ask rejects once the write is done', async () => {
    const writing = deferred<void>();
    const written = deferred<void>();
    const store = new (class extends InMemoryTaskStore {
      override async update(next: TaskRecord): Promise<boolean> {
        if (next.status === 'input_required') {
          writing.resolve();
          await written.promise;
        }
        return super.update(next);
      }
    })();
    const { tasks } = tasksOn(store);
    const call = new AbortController();
    const asked = deferred<unknown>();
    const task = await tasks.start('owner', 'reports_export', undefined, {}, async (running) => {
      const ask = tasks.asker(running.task, elicitation);
      asked.resolve(await Promise.resolve(ask(question, { signal: call.signal })).catch((e) => e));
      return done;
    });
    await writing.promise;
    call.abort(new Error('The task was cancelled.'));
    // The rejection waits, handled, for the write to end.
    await new Promise((resolve) => setImmediate(resolve));
    written.resolve();
    expect(await asked.promise).toEqual(new Error('The task was cancelled.'));
    expect(await waitFor(async () => (await store.get(task.taskId))?.status === 'completed')).toBe(
      true,
    );
  });

  it('a store that fails every write and renewal: the run ends, each failure logged', async () => {
    const store = new (class extends InMemoryTaskStore {
      override update(): Promise<boolean> {
        return Promise.reject(new Error('Redis did not answer an EVAL (update) within 2000 ms.'));
      }
      override renew(): Promise<boolean> {
        return Promise.reject(new Error('Redis did not answer an EVAL (renew) within 2000 ms.'));
      }
    })();
    const { tasks, errors } = tasksOn(store, { leaseMs: 3 });
    const renewed = deferred<void>();
    await tasks.start('owner', 'reports_export', undefined, {}, async ({ report }) => {
      report('Reading');
      await waitFor(() => errors.some((error) => error.includes('could not renew its lease')));
      renewed.resolve();
      return done;
    });
    await renewed.promise;
    await tasks.idle(10_000);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[toolwright\] MCP task \S+ could not be updated:$/),
        expect.stringMatching(/^\[toolwright\] MCP task \S+ could not renew its lease:$/),
      ]),
    );
  });

  it('a bus message that is not one of the tasks’ is logged and dropped; the next is heard', async () => {
    // A bus that hands each message straight to its listeners, as a bus of the application's may.
    const listeners: Array<(message: string) => void> = [];
    const bus: InstanceBus = {
      publish: async (_channel, message) => listeners.forEach((listener) => listener(message)),
      subscribe: async (_channel, listener) => {
        listeners.push(listener);
        return async () => undefined;
      },
      remember: async () => undefined,
      recall: async () => undefined,
      rememberIfAbsent: async () => true,
    };
    const { tasks, errors } = tasksOn(new InMemoryTaskStore(), { bus });
    await tasks.listen();
    const cancelled = deferred<unknown>();
    const task = await tasks.start('owner', 'reports_export', undefined, {}, async ({ signal }) => {
      signal.addEventListener('abort', () => cancelled.resolve(signal.reason), { once: true });
      await cancelled.promise;
      return done;
    });
    const noResponses = JSON.stringify({ kind: 'input', taskId: task.taskId });
    for (const garbage of ['not json', 'null', noResponses]) {
      await bus.publish('toolwright:mcp:tasks', garbage);
    }
    expect(errors).toEqual([
      '[toolwright] MCP: a task message from the bus could not be read:',
      '[toolwright] MCP: a task message from the bus could not be read:',
      '[toolwright] MCP: a task message from the bus could not be read:',
    ]);
    await bus.publish(
      'toolwright:mcp:tasks',
      JSON.stringify({ kind: 'cancel', taskId: task.taskId }),
    );
    expect(await cancelled.promise).toMatchObject({ name: 'AbortError' });
  });
});
