import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  createToolInvoker,
  currentToolCall,
  type ToolCall,
  type ToolCallInfo,
  type ToolResult,
} from '../../lib/core/index.js';
import { sleep } from '../fixtures/timing.js';
import { makeTool } from './support.js';

describe('currentToolCall', () => {
  it('is undefined outside any call, before and after one', async () => {
    expect(currentToolCall()).toBeUndefined();
    await createToolInvoker([makeTool()]).invoke('test_run', {}, { transport: 'MCP' });
    expect(currentToolCall()).toBeUndefined();
  });

  it('is the same call in the handler, every hook and every guard', async () => {
    const seen: Record<string, ToolCallInfo | undefined> = {};
    let handed: ToolCallInfo | undefined;
    const tool = makeTool({
      service: 'billing',
      action: 'getInvoice',
      handler: async ({ call }: ToolCall) => {
        handed = call;
        seen.handler = currentToolCall();
        await sleep(1);
        seen.handlerAfterAwait = currentToolCall();
        throw new Error('to reach onToolError');
      },
    });
    const invoker = createToolInvoker([tool], {
      hooks: {
        beforeToolCall: () => void (seen.before = currentToolCall()),
        onToolError: async () => {
          await sleep(1);
          seen.onToolError = currentToolCall();
        },
        afterToolCall: () => void (seen.after = currentToolCall()),
      },
      guards: [{ canActivate: () => ((seen.guard = currentToolCall()), true) }],
    });
    await invoker.invoke('billing_get_invoice', {}, { transport: 'AGENT' });

    expect(handed).toStrictEqual({
      id: expect.any(String),
      name: 'billing_get_invoice',
      kind: 'tool',
      transport: 'AGENT',
      source: 'internal',
      depth: 0,
    });
    expect(handed!.id.length).toBeGreaterThan(0);
    expect(Object.isFrozen(handed)).toBe(true);
    for (const where of [
      'handler',
      'handlerAfterAwait',
      'before',
      'guard',
      'onToolError',
      'after',
    ]) {
      expect([where, seen[where]]).toEqual([where, handed]);
    }
    expect(seen.handler).toBe(handed);
  });

  it('reports the source and transport the caller gave', async () => {
    let seen: ToolCallInfo | undefined;
    const tool = makeTool({
      transports: ['CLI'],
      handler: () => void (seen = currentToolCall()),
    });
    await createToolInvoker([tool]).invoke('test_run', {}, { transport: 'CLI', source: 'cron' });
    expect(seen).toMatchObject({ transport: 'CLI', source: 'cron', depth: 0 });
  });

  it('gives every call its own id', async () => {
    const ids: string[] = [];
    const tool = makeTool({ handler: ({ call }: ToolCall) => void ids.push(call.id) });
    const invoker = createToolInvoker([tool]);
    await invoker.invoke('test_run', {}, { transport: 'MCP' });
    await invoker.invoke('test_run', {}, { transport: 'MCP' });
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });
});

describe('isolation of parallel calls', () => {
  it('lets 500 parallel calls see only their own context and call', async () => {
    const factory = createRuntimeToolFactory({
      serviceName: 'iso',
      context: z.object({ n: z.number() }),
    });
    // A "service" the handler calls: it finds the call through the async context alone.
    const service = async () => {
      await sleep(Math.random() * 5);
      return currentToolCall();
    };
    const tool = factory.define({
      action: 'echo',
      method: 'GET',
      description: 'Echo the context',
      input: z.object({ n: z.number() }),
      handler: async ({ input, context, call }) => {
        await sleep(Math.random() * 5);
        const now = currentToolCall();
        const fromService = await service();
        return {
          input: input.n,
          context: context.n,
          sameCall: now === call && fromService === call,
          id: call.id,
        };
      },
    });
    const invoker = createToolInvoker([tool]);
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, n) =>
        invoker.invoke<{ input: number; context: number; sameCall: boolean; id: string }>(
          'iso_echo',
          { n },
          { transport: 'AGENT', context: { n } },
        ),
      ),
    );
    const data = results.map((result) => {
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    });
    data.forEach((entry, n) => {
      expect(entry.input).toBe(n);
      expect(entry.context).toBe(n);
      expect(entry.sameCall).toBe(true);
    });
    expect(new Set(data.map((entry) => entry.id)).size).toBe(500);
    expect(currentToolCall()).toBeUndefined();
  });
});

describe('nested calls', () => {
  it('makes a call inside another a child: parentId is the outer id, depth + 1', async () => {
    const seen: Record<string, ToolCallInfo | undefined> = {};
    const inner = makeTool({
      action: 'inner',
      handler: ({ call }: ToolCall) => {
        seen.inner = call;
        seen.innerCurrent = currentToolCall();
        return 'inner done';
      },
    });
    const outer = makeTool({
      action: 'outer',
      handler: async ({ call }: ToolCall) => {
        seen.outer = call;
        const result = await invoker.invoke(
          'test_inner',
          {},
          { transport: 'MCP', source: 'nested' },
        );
        seen.outerAfterNested = currentToolCall();
        return result;
      },
    });
    const invoker = createToolInvoker([inner, outer]);
    const result = await invoker.invoke('test_outer', {}, { transport: 'AGENT' });

    expect(result).toEqual({ ok: true, data: { ok: true, data: 'inner done' } });
    expect(seen.outer).toMatchObject({ name: 'test_outer', depth: 0 });
    expect('parentId' in seen.outer!).toBe(false);
    expect(seen.inner).toStrictEqual({
      id: expect.any(String),
      name: 'test_inner',
      kind: 'tool',
      transport: 'MCP',
      source: 'nested',
      depth: 1,
      parentId: seen.outer!.id,
    });
    expect(seen.inner!.id).not.toBe(seen.outer!.id);
    expect(seen.innerCurrent).toBe(seen.inner);
    expect(seen.outerAfterNested).toBe(seen.outer);
  });

  it('cancels a nested call with its parent', async () => {
    let innerSignal: AbortSignal | undefined;
    const inner = makeTool({
      action: 'inner',
      handler: ({ signal }: ToolCall) => {
        innerSignal = signal;
        return new Promise(() => {});
      },
    });
    let nested: Promise<ToolResult> | undefined;
    const outer = makeTool({
      action: 'outer',
      timeoutMs: 20,
      handler: () => {
        nested = invoker.invoke('test_inner', {}, { transport: 'MCP' });
        return nested;
      },
    });
    const invoker = createToolInvoker([inner, outer]);
    const result = await invoker.invoke('test_outer', {}, { transport: 'MCP' });
    expect(result.ok || result.error.code).toBe('REQUEST_TIMEOUT');
    const innerResult = await nested!;
    expect(innerResult.ok || innerResult.error.code).toBe('REQUEST_ABORTED');
    expect(innerSignal?.aborted).toBe(true);
  });

  function recursive(options: { maxDepth?: number }) {
    const depths: number[] = [];
    const tool = makeTool({
      action: 'recurse',
      handler: async ({ call }: ToolCall): Promise<unknown> => {
        depths.push(call.depth);
        const result = await invoker.invoke('test_recurse', {}, { transport: 'AGENT' });
        return result.ok ? result.data : { refusedAt: call.depth + 1, error: result.error };
      },
    });
    const invoker = createToolInvoker([tool], options);
    return { invoker, depths };
  }

  it('stops a recursive tool beyond the default maxDepth of 8 with RECURSION_LIMIT', async () => {
    const { invoker, depths } = recursive({});
    const result = await invoker.invoke('test_recurse', {}, { transport: 'AGENT' });
    expect(depths).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(result).toEqual({
      ok: true,
      data: {
        refusedAt: 9,
        error: {
          code: 'RECURSION_LIMIT',
          message: 'Tool "test_recurse" was called at depth 9, beyond the limit of 8.',
          retryable: false,
        },
      },
    });
  });

  it.each([0, 1, 3])('honours a custom maxDepth of %i', async (maxDepth) => {
    const { invoker, depths } = recursive({ maxDepth });
    const result = await invoker.invoke('test_recurse', {}, { transport: 'AGENT' });
    expect(depths).toEqual(Array.from({ length: maxDepth + 1 }, (_, depth) => depth));
    expect(result).toMatchObject({
      ok: true,
      data: { refusedAt: maxDepth + 1, error: { code: 'RECURSION_LIMIT' } },
    });
  });

  it('gives RECURSION_LIMIT status 508 through invokeOrThrow', async () => {
    let caught: unknown;
    const tool = makeTool({
      action: 'recurse',
      handler: async () => {
        try {
          await invoker.invokeOrThrow('test_recurse', {}, { transport: 'AGENT' });
        } catch (error) {
          caught = error;
        }
        return null;
      },
    });
    const invoker = createToolInvoker([tool], { maxDepth: 0 });
    await invoker.invoke('test_recurse', {}, { transport: 'AGENT' });
    expect(caught).toMatchObject({ code: 'RECURSION_LIMIT', status: 508 });
  });
});
