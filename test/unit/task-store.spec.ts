import { describe, expect, it, jest } from '@jest/globals';
import { InMemoryTaskStore, type TaskStatus } from '../../lib/core/task-store.js';
import { taskOf, taskStoreContract } from '../fixtures/task-store-contract.js';

const store = new InMemoryTaskStore();
taskStoreContract('InMemoryTaskStore', () => store);

describe("InMemoryTaskStore: counting an owner's live tasks", () => {
  /**
   * How many map reads a create makes once the owner has `ended` completed tasks kept and
   * `working` tasks still running (the clock stands still: no sweep in between).
   */
  async function readsOfOneCreate(ended: number, working: number): Promise<number> {
    const kept = new InMemoryTaskStore();
    const limits = { maxLive: 1_000 };
    for (let i = 0; i < ended + working; i++) {
      const task = taskOf('alice');
      await kept.create(task, limits);
      if (i < ended) await kept.update({ ...task, status: 'completed' as TaskStatus });
    }
    const get = jest.spyOn(Map.prototype, 'get');
    try {
      expect(await kept.create(taskOf('alice'), limits)).toBe(true);
      return get.mock.calls.length;
    } finally {
      get.mockRestore();
    }
  }

  it('reads only the tasks still running, not every ended task the owner keeps', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const few = await readsOfOneCreate(10, 3);
      expect(await readsOfOneCreate(2_000, 3)).toBe(few);
      // The running ones are read: three more running tasks, three more reads at least.
      expect(await readsOfOneCreate(10, 6)).toBeGreaterThanOrEqual(few + 3);
    } finally {
      jest.useRealTimers();
    }
  });

  it('still refuses a create past maxLive however many ended tasks the owner keeps', async () => {
    const kept = new InMemoryTaskStore();
    for (let i = 0; i < 50; i++) {
      const task = taskOf('bob');
      await kept.create(task, { maxLive: 2 });
      await kept.update({ ...task, status: 'completed' as TaskStatus });
    }
    expect(await kept.create(taskOf('bob'), { maxLive: 2 })).toBe(true);
    expect(await kept.create(taskOf('bob'), { maxLive: 2 })).toBe(true);
    expect(await kept.create(taskOf('bob'), { maxLive: 2 })).toBe(false);
    expect(await kept.create(taskOf('carol'), { maxLive: 2 })).toBe(true);
  });
});
