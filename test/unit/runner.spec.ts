import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { map, Observable, of, throwError, timer } from 'rxjs';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  ToolError,
  type AfterToolCallEvent,
  type BeforeToolCallEvent,
  type InvokeOptions,
  type ToolCall,
  type ToolCallEvent,
  type ToolErrorEvent,
  type ToolGuardContext,
  type ToolResult,
} from '../../lib/core/index.js';
import { deferred, sleep } from '../fixtures/timing.js';
import { makeLogger, makeTool } from './support.js';

interface HarnessOptions {
  before?: (options: BeforeToolCallEvent) => unknown;
  guard?: (context: ToolGuardContext) => boolean | Promise<boolean>;
  handler?: (call: ToolCall<{ n: number }, { tenantId: string }>) => unknown;
  timeoutMs?: number;
}

/**
 * One tool (`math_double`) whose every pipeline step writes to an ordered event log: the
 * ambient context resolver, beforeToolCall, the input parse, the context parse, a guard, the
 * handler, the output parse, onToolError, afterToolCall and the call event.
 */
function harness(options: HarnessOptions = {}) {
  const events: string[] = [];
  const step =
    <T>(name: string) =>
    (value: T) => {
      events.push(name);
      return value;
    };
  const handler = jest.fn(async (call: ToolCall<{ n: number }, { tenantId: string }>) => {
    events.push('handler');
    return options.handler ? options.handler(call) : { doubled: call.input.n * 2 };
  });
  const tool = defineRuntimeTool({
    description: 'Double a number',
    identity: { serviceName: 'math', action: 'double', method: 'POST' },
    input: z.object({ n: z.preprocess(step('input'), z.number()) }),
    context: z.preprocess(step('context'), z.object({ tenantId: z.string() })),
    output: z.preprocess(step('output'), z.object({ doubled: z.number() })),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    handler: handler as any,
  });
  const before: BeforeToolCallEvent[] = [];
  const after: AfterToolCallEvent[] = [];
  const errors: ToolErrorEvent[] = [];
  const finished: ToolCallEvent[] = [];
  const logger = makeLogger();
  const invoker = createToolInvoker([tool], {
    logger,
    resolveContext: () => {
      events.push('resolveContext');
      return undefined;
    },
    hooks: {
      beforeToolCall: async (hook) => {
        events.push('before');
        before.push(hook);
        return options.before?.(hook);
      },
      onToolError: (hook) => {
        events.push('onToolError');
        errors.push(hook);
      },
      afterToolCall: (hook) => {
        events.push('after');
        after.push(hook);
      },
    },
    guards: [
      {
        canActivate: async (guard) => {
          events.push('guard');
          return options.guard ? options.guard(guard) : true;
        },
      },
    ],
    onCallFinished: (event) => {
      events.push('finished');
      finished.push(event);
    },
  });
  const run = (args: unknown = { n: 2 }, invokeOptions: Partial<InvokeOptions> = {}) =>
    invoker.invoke('math_double', args, {
      transport: 'AGENT',
      context: { tenantId: 'acme' },
      ...invokeOptions,
    });
  return { events, before, after, errors, finished, logger, handler, tool, invoker, run };
}

const untilAborted = (signal: AbortSignal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve({ doubled: -1 })));

const PREFIX = ['resolveContext', 'before', 'input', 'context', 'guard'];

describe('the pipeline order', () => {
  it('runs every step once, in order, on success', async () => {
    const h = harness();
    const result = await h.run({ n: 21 });
    expect(result).toEqual({ ok: true, data: { doubled: 42 } });
    expect(h.events).toEqual([...PREFIX, 'handler', 'output', 'after', 'finished']);
    expect(h.errors).toHaveLength(0);
    expect(h.after).toHaveLength(1);
    expect(h.after[0].result).toBe(result);
    expect('error' in h.after[0]).toBe(false);
  });
});

/** `logs`: the call is logged as an unexpected failure, with this after the tool's name. */
type Expected = { code: string; events: string[]; reportsError: boolean; logs?: string };
const matrix: [string, HarnessOptions, unknown, () => Partial<InvokeOptions>, Expected][] = [
  [
    'input validation failure',
    {},
    { n: 'two' },
    () => ({}),
    {
      code: 'VALIDATION_ERROR',
      events: ['resolveContext', 'before', 'input', 'after', 'finished'],
      reportsError: false,
    },
  ],
  [
    'context validation failure',
    {},
    { n: 2 },
    () => ({ context: { tenantId: 7 } }),
    {
      code: 'VALIDATION_ERROR',
      events: ['resolveContext', 'before', 'input', 'context', 'after', 'finished'],
      reportsError: false,
    },
  ],
  [
    'before-hook refusal',
    {
      before: () => {
        throw new ToolError('UNAUTHORIZED', { message: 'Sign in first' });
      },
    },
    { n: 2 },
    () => ({}),
    {
      code: 'UNAUTHORIZED',
      events: ['resolveContext', 'before', 'after', 'finished'],
      reportsError: false,
    },
  ],
  [
    'guard returning false',
    { guard: () => false },
    { n: 2 },
    () => ({}),
    { code: 'FORBIDDEN', events: [...PREFIX, 'after', 'finished'], reportsError: false },
  ],
  [
    'guard throwing',
    {
      guard: () => {
        throw new Error('guard crashed');
      },
    },
    { n: 2 },
    () => ({}),
    {
      code: 'INTERNAL_SERVER_ERROR',
      events: [...PREFIX, 'onToolError', 'after', 'finished'],
      reportsError: true,
      logs: '',
    },
  ],
  [
    'handler throwing a ToolError',
    {
      handler: () => {
        throw new ToolError('CONFLICT', { hint: 'refresh', details: { id: 1 } });
      },
    },
    { n: 2 },
    () => ({}),
    {
      code: 'CONFLICT',
      events: [...PREFIX, 'handler', 'onToolError', 'after', 'finished'],
      reportsError: true,
    },
  ],
  [
    'handler throwing an Error',
    {
      handler: () => {
        throw new Error('db at 10.0.0.4 failed');
      },
    },
    { n: 2 },
    () => ({}),
    {
      code: 'INTERNAL_SERVER_ERROR',
      events: [...PREFIX, 'handler', 'onToolError', 'after', 'finished'],
      reportsError: true,
      logs: '',
    },
  ],
  [
    'output mismatch',
    { handler: () => ({ doubled: 'four' }) },
    { n: 2 },
    () => ({}),
    {
      code: 'INTERNAL_SERVER_ERROR',
      events: [...PREFIX, 'handler', 'output', 'onToolError', 'after', 'finished'],
      reportsError: true,
      logs: ': its output does not match its output schema',
    },
  ],
  [
    'timeout',
    { timeoutMs: 15, handler: ({ signal }) => untilAborted(signal) },
    { n: 2 },
    () => ({}),
    {
      code: 'REQUEST_TIMEOUT',
      events: [...PREFIX, 'handler', 'after', 'finished'],
      reportsError: false,
    },
  ],
  [
    'caller abort',
    { handler: ({ signal }) => untilAborted(signal) },
    { n: 2 },
    () => ({ signal: AbortSignal.timeout(15) }),
    {
      code: 'REQUEST_ABORTED',
      events: [...PREFIX, 'handler', 'after', 'finished'],
      reportsError: false,
    },
  ],
];

/** The line an unexpected failure is logged with: tool, call id, transport and source, nothing of the arguments. */
const unexpectedLine = (tool: string, where: string) =>
  expect.stringMatching(
    new RegExp(
      `^\\[toolwright\\] Tool "${tool}" failed unexpectedly${where} \\(call [0-9a-f]{12}-[0-9a-z]+, AGENT/internal\\):$`,
    ),
  );

describe('the failure matrix', () => {
  it.each(matrix)(
    '%s: resolves to a failure, with exactly one afterToolCall',
    async (_label, options, args, invokeOptions, expected) => {
      const h = harness(options);
      const result = await h.run(args, invokeOptions());
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe(expected.code);
      expect(h.events).toEqual(expected.events);
      expect(h.after).toHaveLength(1);
      expect(h.after[0].result).toBe(result);
      expect(h.after[0].args).toBe(args);
      expect(h.finished).toHaveLength(1);
      expect(h.finished[0]).toMatchObject({ ok: false, errorCode: expected.code });
      expect(h.errors).toHaveLength(expected.reportsError ? 1 : 0);
      expect('error' in h.after[0]).toBe(expected.reportsError);
      if (expected.reportsError) expect(h.after[0].error).toBe(h.errors[0].error);
      expect(JSON.stringify(result)).not.toMatch(/stack|10\.0\.0\.4|guard crashed/);
      // An internal error is logged once, with the call and the thrown value; nothing else is.
      expect(h.logger.error.mock.calls).toEqual(
        expected.logs === undefined
          ? []
          : [[unexpectedLine('math_double', expected.logs), h.errors[0].error]],
      );
    },
  );

  it('input validation failure reports target "input" and its issues; nothing after the parse runs', async () => {
    const h = harness();
    const result = await h.run({ n: 'two', extra: true });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^Invalid input: n: /),
        retryable: false,
        details: {
          target: 'input',
          issues: [{ path: 'n', code: 'invalid_type', message: expect.any(String) }],
        },
      },
    });
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('context validation failure reports target "context" and never calls the handler', async () => {
    const h = harness();
    const result = await h.run({ n: 2 }, { context: {} });
    expect(result.ok || result.error.details).toEqual({
      target: 'context',
      issues: [{ path: 'tenantId', code: 'invalid_type', message: expect.any(String) }],
    });
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('a before-hook refusal keeps the ToolError and skips parsing, guards and the handler', async () => {
    const h = harness({
      before: () => {
        throw new ToolError('UNAUTHORIZED', { message: 'Sign in first', hint: 'log in' });
      },
    });
    const result = await h.run();
    expect(result).toEqual({
      ok: false,
      error: { code: 'UNAUTHORIZED', message: 'Sign in first', retryable: false, hint: 'log in' },
    });
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('a before hook throwing a plain Error is a refusal scrubbed to INTERNAL_SERVER_ERROR', async () => {
    const h = harness({
      before: () => {
        throw new Error('token store at 10.0.0.4 down');
      },
    });
    const result = await h.run();
    expect(result).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(h.errors).toHaveLength(0);
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('a guard returning false answers FORBIDDEN; a truthy non-boolean does not allow the call', async () => {
    const refused = harness({ guard: () => false });
    expect(await refused.run()).toEqual({
      ok: false,
      error: {
        code: 'FORBIDDEN',
        message: 'The call to "math_double" was refused by a guard.',
        retryable: false,
      },
    });
    const truthy = harness({ guard: () => 1 as unknown as boolean });
    expect((await truthy.run()).ok).toBe(false);
    expect(refused.handler).not.toHaveBeenCalled();
    expect(truthy.handler).not.toHaveBeenCalled();
  });

  it('a guard throwing a ToolError keeps it, and onToolError gets the thrown value', async () => {
    const thrown = new ToolError('RATE_LIMITED', { message: 'Too many calls' });
    const h = harness({
      guard: () => {
        throw thrown;
      },
    });
    const result = await h.run();
    expect(result).toEqual({
      ok: false,
      error: { code: 'RATE_LIMITED', message: 'Too many calls', retryable: true },
    });
    expect(h.errors[0].error).toBe(thrown);
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('a guard sees the tool descriptor, the parsed input and the parsed context', async () => {
    let seen: ToolGuardContext | undefined;
    const h = harness({
      guard: (guard) => {
        seen = guard;
        return true;
      },
    });
    await h.run({ n: 2, extra: 'dropped' }, { context: { tenantId: 'acme', role: 'x' } });
    expect(seen?.tool.name).toBe('math_double');
    expect(seen?.tool.identity).toEqual(h.tool.identity);
    expect(seen?.input).toStrictEqual({ n: 2 });
    expect(seen?.context).toStrictEqual({ tenantId: 'acme' });
    expect(seen?.call.name).toBe('math_double');
  });

  it('a handler ToolError keeps its code, message, hint and details', async () => {
    const thrown = new ToolError('CONFLICT', {
      message: 'Invoice already paid',
      hint: 'Refresh the invoice',
      details: { id: 'inv_1' },
    });
    const h = harness({
      handler: () => {
        throw thrown;
      },
    });
    const result = await h.run();
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'CONFLICT',
        message: 'Invoice already paid',
        retryable: false,
        hint: 'Refresh the invoice',
        details: { id: 'inv_1' },
      },
    });
    expect(h.errors[0].error).toBe(thrown);
  });

  it('a handler Error is scrubbed; onToolError and afterToolCall get the original object', async () => {
    const thrown = new Error('db at 10.0.0.4 failed');
    const h = harness({
      handler: async () => {
        await sleep(1);
        throw thrown;
      },
    });
    const result = await h.run();
    expect(result).toEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect(h.errors).toHaveLength(1);
    expect(h.errors[0].error).toBe(thrown);
    expect(h.errors[0]).toMatchObject({ name: 'math_double', args: { n: 2 } });
    expect(h.errors[0].context).toEqual({ tenantId: 'acme' });
    expect(h.after[0].error).toBe(thrown);
    expect(JSON.stringify(result)).not.toContain('10.0.0.4');
    expect(JSON.stringify(h.after[0].result)).not.toContain('10.0.0.4');
  });

  it('a handler throwing synchronously (not from a promise) is caught the same way', async () => {
    const thrown = new TypeError('x is not a function');
    const tool = makeTool({
      handler: () => {
        throw thrown;
      },
    });
    const onToolError = jest.fn();
    const result = await createToolInvoker([tool], { hooks: { onToolError } }).invoke(
      'test_run',
      {},
      { transport: 'MCP' },
    );
    expect(result.ok || result.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(onToolError).toHaveBeenCalledWith(expect.objectContaining({ error: thrown }));
  });

  it('an output mismatch tells the caller nothing, while hooks get the ZodError', async () => {
    const h = harness({ handler: () => ({ doubled: 'four', secretField: 'x' }) });
    const result = await h.run();
    expect(result).toStrictEqual({
      ok: false,
      error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    const error = h.errors[0].error;
    expect(error).toBeInstanceOf(z.ZodError);
    expect((error as z.ZodError).issues[0].path).toEqual(['doubled']);
    expect(h.after[0].error).toBe(error);
  });

  it('the output is parsed: transforms apply and unknown keys are stripped', async () => {
    const tool = makeTool({
      output: z.object({
        at: z
          .string()
          .transform((value) => value.length)
          .pipe(z.number()),
      }),
      handler: () => ({ at: 'abc', internal: 'strip me' }),
    });
    await expect(
      createToolInvoker([tool]).invoke('test_run', {}, { transport: 'MCP' }),
    ).resolves.toStrictEqual({ ok: true, data: { at: 3 } });
  });

  describe('with fake timers', () => {
    beforeEach(() => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('a timeout answers REQUEST_TIMEOUT (retryable), aborts the handler signal and ignores the late outcome', async () => {
      let signal: AbortSignal | undefined;
      const entered = deferred();
      const late = deferred<never>();
      const h = harness({
        timeoutMs: 15,
        handler: (call) => {
          signal = call.signal;
          entered.resolve();
          return late.promise;
        },
      });
      let settled = false;
      const pending = h.run().finally(() => (settled = true));
      await entered.promise;
      await jest.advanceTimersByTimeAsync(14);
      expect({ settled, aborted: signal?.aborted }).toEqual({ settled: false, aborted: false });
      // The result comes at 15 ms, while the handler is still running.
      await jest.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      expect(await pending).toEqual({
        ok: false,
        error: {
          code: 'REQUEST_TIMEOUT',
          message: 'Tool "math_double" did not finish within 15 ms.',
          retryable: true,
        },
      });
      expect(signal?.aborted).toBe(true);
      expect(ToolError.is(signal?.reason)).toBe(true);
      // The late rejection changes nothing of the answer; onToolError still sees it.
      const lateFailure = new Error('late failure');
      late.reject(lateFailure);
      await jest.advanceTimersByTimeAsync(100);
      expect(h.errors.map((options) => options.error)).toEqual([lateFailure]);
      expect(h.after).toHaveLength(1);
      expect(h.logger.error.mock.calls).toEqual([
        [unexpectedLine('math_double', ' after its call was answered'), lateFailure],
      ]);
    });

    it('a handler that finishes within its timeout succeeds, and its signal stays quiet', async () => {
      let signal: AbortSignal | undefined;
      const entered = deferred();
      const finish = deferred<{ doubled: number }>();
      const h = harness({
        timeoutMs: 200,
        handler: (call) => {
          signal = call.signal;
          entered.resolve();
          return finish.promise;
        },
      });
      const pending = h.run();
      await entered.promise;
      await jest.advanceTimersByTimeAsync(199);
      finish.resolve({ doubled: 1 });
      expect(await pending).toEqual({ ok: true, data: { doubled: 1 } });
      // Its timeout was cleared: time passing past it aborts nothing.
      await jest.advanceTimersByTimeAsync(1000);
      expect(signal?.aborted).toBe(false);
      expect(jest.getTimerCount()).toBe(0);
    });
  });

  it('a caller abort mid-call answers REQUEST_ABORTED and aborts the handler signal', async () => {
    const controller = new AbortController();
    const entered = deferred();
    let signal: AbortSignal | undefined;
    const h = harness({
      handler: (call) => {
        signal = call.signal;
        entered.resolve();
        return new Promise(() => {}); // never settles on its own
      },
    });
    const pending = h.run({ n: 2 }, { signal: controller.signal });
    await entered.promise;
    expect(signal?.aborted).toBe(false);
    controller.abort();
    const result = await pending;
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'REQUEST_ABORTED',
        message: 'The call to "math_double" was cancelled.',
        retryable: false,
      },
    });
    expect(signal?.aborted).toBe(true);
    expect(h.errors).toHaveLength(0);
    expect(h.after).toHaveLength(1);
  });

  it('a caller signal aborted before the handler starts answers REQUEST_ABORTED without running it', async () => {
    const h = harness();
    const result = await h.run({ n: 2 }, { signal: AbortSignal.abort() });
    expect(result.ok || result.error.code).toBe('REQUEST_ABORTED');
    expect(h.handler).not.toHaveBeenCalled();
    expect(h.after).toHaveLength(1);
    expect(h.errors).toHaveLength(0);
  });

  it('a caller abort while a guard is pending does not start the handler', async () => {
    const controller = new AbortController();
    const h = harness({
      guard: async () => {
        controller.abort();
        return true;
      },
    });
    const result = await h.run({ n: 2 }, { signal: controller.signal });
    expect(result.ok || result.error.code).toBe('REQUEST_ABORTED');
    expect(h.handler).not.toHaveBeenCalled();
  });

  it('recursion beyond maxDepth answers RECURSION_LIMIT before any beforeToolCall, with one afterToolCall per call', async () => {
    const before: number[] = [];
    const after: [number, ToolResult][] = [];
    const onToolError = jest.fn();
    const tool = makeTool({
      action: 'nest',
      handler: () => invoker.invoke('test_nest', {}, { transport: 'AGENT' }),
    });
    const invoker = createToolInvoker([tool], {
      maxDepth: 0,
      hooks: {
        beforeToolCall: ({ call }) => void before.push(call.depth),
        afterToolCall: ({ call, result }) => void after.push([call.depth, result]),
        onToolError,
      },
    });
    const result = await invoker.invoke('test_nest', {}, { transport: 'AGENT' });
    const inner = {
      ok: false,
      error: {
        code: 'RECURSION_LIMIT',
        message: 'Tool "test_nest" was called at depth 1, beyond the limit of 0.',
        retryable: false,
      },
    };
    expect(result).toEqual({ ok: true, data: inner });
    expect(before).toEqual([0]);
    expect(after).toEqual([
      [1, inner],
      [0, result],
    ]);
    expect(onToolError).not.toHaveBeenCalled();
  });
});

describe('onToolError and afterToolCall', () => {
  it('awaits onToolError before afterToolCall', async () => {
    const order: string[] = [];
    const tool = makeTool({
      handler: () => {
        throw new Error('x');
      },
    });
    await createToolInvoker([tool], {
      hooks: {
        onToolError: async () => {
          await sleep(10);
          order.push('onToolError done');
        },
        afterToolCall: () => void order.push('afterToolCall'),
      },
    }).invoke('test_run', {}, { transport: 'MCP' });
    expect(order).toEqual(['onToolError done', 'afterToolCall']);
  });

  it('runs hooks of every object, in registration order, with `this` bound', async () => {
    const order: string[] = [];
    class AuditHook {
      constructor(private readonly label: string) {}
      afterToolCall() {
        order.push(`after:${this.label}`);
      }
      beforeToolCall() {
        order.push(`before:${this.label}`);
      }
    }
    await createToolInvoker([makeTool()], {
      hooks: [
        new AuditHook('a'),
        { afterToolCall: () => void order.push('after:plain') },
        new AuditHook('b'),
      ],
    }).invoke('test_run', {}, { transport: 'MCP' });
    expect(order).toEqual(['before:a', 'before:b', 'after:a', 'after:plain', 'after:b']);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('hook bug');
      },
    ],
    ['rejects', async () => Promise.reject(new Error('hook bug'))],
  ])('an afterToolCall hook that %s is logged and changes nothing', async (_label, failing) => {
    const logger = makeLogger();
    const later = jest.fn();
    const invoker = createToolInvoker([makeTool()], {
      logger,
      hooks: [{ afterToolCall: failing }, { afterToolCall: later }],
    });
    const result = await invoker.invoke('test_run', { a: 1 }, { transport: 'MCP' });
    expect(result).toEqual({ ok: true, data: { a: 1 } });
    expect(later).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] afterToolCall hook failed for "test_run":',
      expect.objectContaining({ message: 'hook bug' }),
    );
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('hook bug');
      },
    ],
    ['rejects', async () => Promise.reject(new Error('hook bug'))],
  ])('an onToolError hook that %s is logged and changes nothing', async (_label, failing) => {
    const logger = makeLogger();
    const afterToolCall = jest.fn();
    const tool = makeTool({
      handler: () => {
        throw new ToolError('CONFLICT', { message: 'busy' });
      },
    });
    const invoker = createToolInvoker([tool], {
      logger,
      hooks: { onToolError: failing, afterToolCall },
    });
    const result = await invoker.invoke('test_run', {}, { transport: 'MCP' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'busy', retryable: false },
    });
    expect(afterToolCall).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] onToolError hook failed for "test_run":',
      expect.objectContaining({ message: 'hook bug' }),
    );
  });

  it('logs to console by default', async () => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const invoker = createToolInvoker([makeTool()], {
        hooks: {
          afterToolCall: () => {
            throw new Error('hook bug');
          },
        },
      });
      expect((await invoker.invoke('test_run', {}, { transport: 'MCP' })).ok).toBe(true);
      expect(spy).toHaveBeenCalledWith(
        '[toolwright] afterToolCall hook failed for "test_run":',
        expect.any(Error),
      );
    } finally {
      spy.mockRestore();
    }
  });

  it('an onCallFinished listener that throws is logged and changes nothing', async () => {
    const logger = makeLogger();
    const invoker = createToolInvoker([makeTool()], {
      logger,
      onCallFinished: () => {
        throw new Error('listener bug');
      },
    });
    expect(await invoker.invoke('test_run', { a: 1 }, { transport: 'MCP' })).toEqual({
      ok: true,
      data: { a: 1 },
    });
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] call event listener failed for "test_run":',
      expect.objectContaining({ message: 'listener bug' }),
    );
  });

  it('hands afterToolCall the duration of the call', async () => {
    // Fake timers fake performance.now too: the duration is exactly the time the handler took.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const after: AfterToolCallEvent[] = [];
      const finished: ToolCallEvent[] = [];
      const tool = makeTool({
        handler: async () => {
          await sleep(25);
          return 1;
        },
      });
      const pending = createToolInvoker([tool], {
        hooks: { afterToolCall: (options) => void after.push(options) },
        onCallFinished: (event) => void finished.push(event),
      }).invoke('test_run', {}, { transport: 'MCP' });
      await jest.advanceTimersByTimeAsync(25);
      await pending;
      expect(after[0].durationMs).toBe(25);
      expect(finished[0].durationMs).toBe(25);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('beforeToolCall', () => {
  it('replaces the arguments with a returned plain object, validated as input', async () => {
    const original = { n: 2 };
    const h = harness({ before: () => ({ n: 5 }) });
    expect(await h.run(original)).toEqual({ ok: true, data: { doubled: 10 } });
    expect(h.handler.mock.calls[0][0].input).toEqual({ n: 5 });
    expect(h.after[0].args).toBe(original);
    expect(h.before[0].args).toBe(original);
  });

  it('validates a replacement like any input', async () => {
    const h = harness({ before: () => ({ n: 'five' }) });
    const result = await h.run({ n: 2 });
    expect(result.ok || result.error.details?.target).toBe('input');
    expect(h.handler).not.toHaveBeenCalled();
    expect(h.after[0].args).toEqual({ n: 2 });
  });

  it('accepts a null-prototype object as a replacement', async () => {
    const replacement = Object.assign(Object.create(null), { n: 4 });
    const h = harness({ before: () => replacement });
    expect(await h.run({ n: 2 })).toEqual({ ok: true, data: { doubled: 8 } });
  });

  it('chains replacements through hooks in order', async () => {
    const seen: unknown[] = [];
    const invoker = createToolInvoker([makeTool()], {
      hooks: [
        { beforeToolCall: ({ args }) => (seen.push(args), { step: 1 }) },
        { beforeToolCall: ({ args }) => (seen.push(args), undefined) },
        { beforeToolCall: ({ args }) => (seen.push(args), { step: 3 }) },
      ],
    });
    const result = await invoker.invoke('test_run', { step: 0 }, { transport: 'MCP' });
    expect(seen).toEqual([{ step: 0 }, { step: 1 }, { step: 1 }]);
    expect(result).toEqual({ ok: true, data: { step: 3 } });
  });

  class Args {
    n = 9;
  }
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a Map', new Map([['n', 9]])],
    ['a number', 9],
    ['a string', '{"n":9}'],
    ['true', true],
    ['an array', [{ n: 9 }]],
    ['a class instance', new Args()],
    ['a promise of undefined', Promise.resolve(undefined)],
  ])('returning %s changes nothing', async (_label, value) => {
    const h = harness({ before: () => value });
    expect(await h.run({ n: 2 })).toEqual({ ok: true, data: { doubled: 4 } });
    expect(h.handler.mock.calls[0][0].input).toEqual({ n: 2 });
  });

  it('receives the raw context, merged from the resolver and the caller', async () => {
    const seen: BeforeToolCallEvent[] = [];
    const invoker = createToolInvoker([makeTool()], {
      resolveContext: () => ({ tenantId: 'ambient', requestId: 'r1' }),
      hooks: { beforeToolCall: (options) => void seen.push(options) },
    });
    await invoker
      .invoke(
        'test_run',
        { a: 1 },
        { transport: 'CLI' as never, context: { tenantId: 'explicit' } },
      )
      .catch(() => undefined);
    await invoker.invoke(
      'test_run',
      { a: 1 },
      { transport: 'MCP', context: { tenantId: 'explicit' } },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0].name).toBe('test_run');
    expect(seen[0].args).toEqual({ a: 1 });
    expect(seen[0].context).toEqual({ tenantId: 'explicit', requestId: 'r1' });
    expect(seen[0].call).toMatchObject({ name: 'test_run', transport: 'MCP', depth: 0 });
  });

  it('parses missing arguments as an empty object; hooks see what the caller sent', async () => {
    const after = jest.fn<(options: AfterToolCallEvent) => void>();
    const invoker = createToolInvoker([makeTool()], { hooks: { afterToolCall: after } });
    expect(await invoker.invoke('test_run', undefined, { transport: 'MCP' })).toEqual({
      ok: true,
      data: {},
    });
    expect(after.mock.calls[0][0].args).toBeUndefined();
  });
});

describe('handler results', () => {
  const run = async (handler: (call: ToolCall) => unknown, extra: Record<string, unknown> = {}) => {
    const onToolError = jest.fn<(options: ToolErrorEvent) => void>();
    const result = await createToolInvoker([makeTool({ handler, ...extra })], {
      hooks: { onToolError },
    }).invoke('test_run', {}, { transport: 'MCP' });
    return { result, onToolError };
  };

  it('takes a plain value', async () => {
    expect((await run(() => 42)).result).toEqual({ ok: true, data: 42 });
    expect((await run(() => undefined)).result).toEqual({ ok: true, data: undefined });
  });

  it('awaits a promise', async () => {
    expect((await run(async () => (await sleep(2), 'later'))).result).toEqual({
      ok: true,
      data: 'later',
    });
  });

  it('awaits a non-native thenable', async () => {
    const thenable = { then: (resolve: (value: string) => void) => resolve('thenable') };
    expect((await run(() => thenable)).result).toEqual({ ok: true, data: 'thenable' });
  });

  it('takes the last value an Observable emits', async () => {
    expect((await run(() => of(1, 2, 3))).result).toEqual({ ok: true, data: 3 });
  });

  it('waits for a delayed Observable', async () => {
    expect((await run(() => timer(15).pipe(map(() => 'late')))).result).toEqual({
      ok: true,
      data: 'late',
    });
  });

  it('takes undefined from an Observable that completes without a value', async () => {
    expect((await run(() => new Observable((subscriber) => subscriber.complete()))).result).toEqual(
      { ok: true, data: undefined },
    );
  });

  it('parses the last emitted value against the output schema', async () => {
    const output = z.object({ n: z.number() });
    expect((await run(() => of({ n: 1 }, { n: 2 }), { output })).result).toEqual({
      ok: true,
      data: { n: 2 },
    });
    expect((await run(() => of({ n: 1 }, { n: 'x' }), { output })).result.ok).toBe(false);
  });

  it('normalizes an Observable that errors with a ToolError, reporting it to onToolError', async () => {
    const thrown = new ToolError('CONFLICT', { hint: 'again' });
    const { result, onToolError } = await run(() => throwError(() => thrown));
    expect(result).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'CONFLICT', retryable: false, hint: 'again' },
    });
    expect(onToolError.mock.calls[0][0].error).toBe(thrown);
  });

  it('scrubs an Observable that errors with a plain Error', async () => {
    const thrown = new Error('stream at 10.0.0.4 broke');
    const { result, onToolError } = await run(() =>
      timer(5).pipe(
        map(() => {
          throw thrown;
        }),
      ),
    );
    expect(result.ok || result.error).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Internal server error',
      retryable: false,
    });
    expect(onToolError.mock.calls[0][0].error).toBe(thrown);
  });

  it('unsubscribes from an Observable when the timeout passes', async () => {
    let tornDown = false;
    const never = new Observable<number>((subscriber) => {
      subscriber.next(1);
      return () => {
        tornDown = true;
      };
    });
    const { result } = await run(() => never, { timeoutMs: 10 });
    expect(result.ok || result.error.code).toBe('REQUEST_TIMEOUT');
    expect(tornDown).toBe(true);
  });
});

describe('progress and log', () => {
  it('reach the onProgress and onLog options of the call', async () => {
    const tool = makeTool({
      handler: ({ reportProgress, log }: ToolCall) => {
        reportProgress({ progress: 1, total: 2, message: 'half' });
        log.debug('d');
        log.info('i', { a: 1 });
        log.warning('w');
        log.warn('w2', { alias: true });
        log.error('e', 'data');
        reportProgress({ progress: 2, total: 2 });
        return 'done';
      },
    });
    const onProgress = jest.fn();
    const onLog = jest.fn();
    const result = await createToolInvoker([tool]).invoke(
      'test_run',
      {},
      { transport: 'MCP', onProgress, onLog },
    );
    expect(result).toEqual({ ok: true, data: 'done' });
    expect(onProgress.mock.calls).toEqual([
      [{ progress: 1, total: 2, message: 'half' }],
      [{ progress: 2, total: 2 }],
    ]);
    expect(onLog.mock.calls).toEqual([
      ['debug', 'd', undefined],
      ['info', 'i', { a: 1 }],
      ['warning', 'w', undefined],
      ['warning', 'w2', { alias: true }],
      ['error', 'e', 'data'],
    ]);
  });

  it.each([
    [
      'throw',
      () => {
        throw new Error('sink down');
      },
    ],
    ['reject', () => Promise.reject(new Error('sink down'))],
  ])('sinks that %s never break the call and are logged', async (_label, failing) => {
    const logger = makeLogger();
    const reached: string[] = [];
    const tool = makeTool({
      handler: ({ reportProgress, log }: ToolCall) => {
        expect(reportProgress({ progress: 1 })).toBeUndefined();
        reached.push('after progress');
        expect(log.info('hello')).toBeUndefined();
        reached.push('after log');
        return 'done';
      },
    });
    const result = await createToolInvoker([tool], { logger }).invoke(
      'test_run',
      {},
      { transport: 'MCP', onProgress: failing, onLog: failing },
    );
    await sleep(0);
    expect(result).toEqual({ ok: true, data: 'done' });
    expect(reached).toEqual(['after progress', 'after log']);
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] progress sink failed for "test_run":',
      expect.objectContaining({ message: 'sink down' }),
    );
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] log sink failed for "test_run":',
      expect.objectContaining({ message: 'sink down' }),
    );
  });

  it('are callable no-ops without sinks', async () => {
    const tool = makeTool({
      handler: ({ reportProgress, log }: ToolCall) => {
        const returned = [
          reportProgress({ progress: 1 }),
          log.debug('x'),
          log.info('x'),
          log.warning('x'),
          log.error('x', { y: 1 }),
        ];
        return returned.every((value) => value === undefined);
      },
    });
    expect(await createToolInvoker([tool]).invoke('test_run', {}, { transport: 'MCP' })).toEqual({
      ok: true,
      data: true,
    });
  });
});

describe('onCallFinished', () => {
  function finishing() {
    const finished: ToolCallEvent[] = [];
    const calls: ToolCall[] = [];
    const leaf = makeTool({
      service: 'billing',
      action: 'leaf',
      method: 'GET',
      transports: ['CLI', 'AGENT'],
      handler: (call: ToolCall) => {
        calls.push(call);
        if ((call.input as { fail?: boolean }).fail) throw new ToolError('CONFLICT');
        return 'leaf';
      },
    });
    const outer = makeTool({
      service: 'billing',
      action: 'outer',
      handler: async (call: ToolCall) => {
        calls.push(call);
        return invoker.invoke('billing_leaf', {}, { transport: 'AGENT', source: 'nested' });
      },
    });
    const invoker = createToolInvoker([leaf, outer], {
      onCallFinished: (event) => void finished.push(event),
    });
    return { invoker, finished, calls, leaf };
  }

  it('reports one event per call with its fields', async () => {
    const { invoker, finished, calls, leaf } = finishing();
    await invoker.invoke('billing_leaf', {}, { transport: 'CLI', source: 'cli' });
    expect(finished).toHaveLength(1);
    expect(finished[0]).toStrictEqual({
      name: 'billing_leaf',
      kind: 'tool',
      identity: leaf.identity,
      transport: 'CLI',
      source: 'cli',
      ok: true,
      durationMs: expect.any(Number),
      callId: calls[0].call.id,
      depth: 0,
    });
    expect(finished[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('carries the error code of a failed call', async () => {
    const { invoker, finished } = finishing();
    await invoker.invoke('billing_leaf', { fail: true }, { transport: 'CLI' });
    expect(finished[0]).toMatchObject({ ok: false, errorCode: 'CONFLICT', source: 'internal' });
  });

  it('reports a nested call first, with its parentId and depth', async () => {
    const { invoker, finished, calls } = finishing();
    await invoker.invoke('billing_outer', {}, { transport: 'MCP' });
    expect(finished.map((event) => event.name)).toEqual(['billing_leaf', 'billing_outer']);
    const [inner, outer] = finished;
    expect(outer.callId).toBe(calls[0].call.id);
    expect(inner.callId).toBe(calls[1].call.id);
    expect(inner.parentId).toBe(outer.callId);
    expect(inner).toMatchObject({ depth: 1, transport: 'AGENT', source: 'nested' });
    expect('parentId' in outer).toBe(false);
    expect(new Set(finished.map((event) => event.callId)).size).toBe(2);
  });

  it('is emitted before the invoke promise settles', async () => {
    const { invoker, finished } = finishing();
    const seenAtSettle = await invoker
      .invoke('billing_leaf', {}, { transport: 'CLI' })
      .then(() => finished.length);
    expect(seenAtSettle).toBe(1);
  });

  it('is not emitted for an unknown tool', async () => {
    const { invoker, finished } = finishing();
    const unknown = invoker.invoke('billing_nope', {}, { transport: 'CLI', source: 'cli' });
    await expect(unknown).rejects.toBeInstanceOf(ToolError);
    await expect(unknown).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Unknown tool "billing_nope". Did you mean "billing_leaf"?',
    });
    expect(finished).toHaveLength(0);
  });
});
