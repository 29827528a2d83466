import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { ForbiddenException, type INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  ToolError,
  ToolInvoker,
  ToolRequestContext,
  ToolsModule,
  type ToolGuard,
  type ToolHooks,
  type ToolResult,
} from '../../lib/index.js';
import {
  ADAPTERS,
  ERAS,
  callBody,
  eraHeaders,
  fcParams,
  finalMessage,
  leaksIn,
  listBody,
  post,
  toolPayload,
  type Era,
} from './support.js';
import { TestApps } from '../fixtures/apps.js';
import { deferred, waitFor, type Deferred } from '../fixtures/timing.js';

/**
 * Faults: a handler that never settles, a client that goes away, a shutdown with calls in
 * flight, and hooks, guards, resolvers and outputs that fail. Each has its defined result, and
 * the next call works.
 */

const silent = { error: () => {}, warn: () => {} };

// ---------------------------------------------------------------------------------------------
// Tools that hang, wait or hold, recording what their signal did.

interface Signals {
  started: Set<string>;
  aborted: Map<string, unknown>;
  /** What happened, in order: `fault_hold` calls finishing (`finished:<key>`), and the test's own. */
  events: string[];
  /** Releases every `fault_hold` call. */
  release: Deferred;
}

const newSignals = (): Signals => ({
  started: new Set(),
  aborted: new Map(),
  events: [],
  release: deferred(),
});

function slowTools(signals: Signals) {
  const watch = (key: string, signal: AbortSignal) => {
    signals.started.add(key);
    signal.addEventListener('abort', () => signals.aborted.set(key, signal.reason), { once: true });
  };
  return [
    defineRuntimeTool({
      name: 'fault_hang',
      description: 'Never settles',
      identity: { serviceName: 'fault', action: 'hang', method: 'GET' },
      input: z.object({ key: z.string() }),
      timeoutMs: 150,
      handler: ({ input, signal }) => {
        watch(input.key, signal);
        return new Promise(() => {});
      },
    }),
    defineRuntimeTool({
      name: 'fault_wait',
      description: 'Waits for its signal (or gives up after 5 s)',
      identity: { serviceName: 'fault', action: 'wait', method: 'GET' },
      input: z.object({ key: z.string() }),
      handler: ({ input, signal }) =>
        new Promise((resolve) => {
          watch(input.key, signal);
          signal.addEventListener('abort', () => resolve({ aborted: true }), { once: true });
          setTimeout(() => resolve({ aborted: false }), 5000).unref();
        }),
    }),
    defineRuntimeTool({
      name: 'fault_hold',
      description: 'Holds until the test releases it, ignoring its signal, then answers',
      identity: { serviceName: 'fault', action: 'hold', method: 'GET' },
      input: z.object({ key: z.string() }),
      handler: async ({ input, signal, reportProgress }) => {
        watch(input.key, signal);
        reportProgress({ progress: 1, total: 2 });
        await signals.release.promise;
        signals.events.push(`finished:${input.key}`);
        return { held: true, key: input.key };
      },
    }),
    defineRuntimeTool({
      name: 'fault_ok',
      description: 'Answers at once',
      identity: { serviceName: 'fault', action: 'ok', method: 'GET' },
      input: z.object({}),
      handler: () => ({ ok: true }),
    }),
  ];
}

afterEach(() => {
  // Nothing a fault does may leave the process with a planted prototype property.
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
});

// ---------------------------------------------------------------------------------------------

describe('a handler that never settles', () => {
  it('is cut off by its timeoutMs with REQUEST_TIMEOUT, its signal aborted; the next call works', async () => {
    // Fake timers (and a fake performance.now): the timeout fires at exactly 150 ms, not before.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    try {
      const signals = newSignals();
      const invoker = createToolInvoker(slowTools(signals), { logger: silent });
      for (let round = 0; round < 3; round++) {
        const key = `hang-${round}`;
        let settled = false;
        const call = Promise.resolve(
          invoker.invoke('fault_hang', { key }, { transport: 'AGENT' }),
        ).finally(() => (settled = true));
        await jest.advanceTimersByTimeAsync(149);
        expect({
          started: signals.started.has(key),
          settled,
          aborted: signals.aborted.has(key),
        }).toEqual({
          started: true,
          settled: false,
          aborted: false,
        });
        await jest.advanceTimersByTimeAsync(1);
        expect(settled).toBe(true);
        expect(await call).toEqual({
          ok: false,
          error: {
            code: 'REQUEST_TIMEOUT',
            message: 'Tool "fault_hang" did not finish within 150 ms.',
            retryable: true,
          },
        });
        expect(signals.aborted.get(key)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
        expect(await invoker.invoke('fault_ok', {}, { transport: 'AGENT' })).toEqual({
          ok: true,
          data: { ok: true },
        });
      }
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('a handler that finishes after its timeoutMs while the event loop lags', () => {
  // Found by the soak: under load, Node runs every due timer of a duration's list before the
  // next list, so a handler's own 60 ms timer (in a list that started earlier) can fire before
  // the runner's 20 ms timeout timer, and its late result was returned as a success.
  it('is a REQUEST_TIMEOUT however the timers are ordered', async () => {
    const late = defineRuntimeTool({
      name: 'fault_late',
      description: 'Answers after 60 ms, past its 20 ms timeout',
      identity: { serviceName: 'fault', action: 'late', method: 'GET' },
      input: z.object({}),
      timeoutMs: 20,
      handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 60)),
    });
    const invoker = createToolInvoker([late], { logger: silent });
    for (let round = 0; round < 3; round++) {
      // An earlier 60 ms timer puts the 60 ms list ahead of the runner's 20 ms one...
      setTimeout(() => {}, 60);
      await new Promise((resolve) => setTimeout(resolve, 45));
      const call = invoker.invoke('fault_late', {}, { transport: 'AGENT' });
      // ...and a blocked event loop makes both due at once.
      const blockedUntil = performance.now() + 100;
      while (performance.now() < blockedUntil);
      expect(await call).toEqual({
        ok: false,
        error: {
          code: 'REQUEST_TIMEOUT',
          message: 'Tool "fault_late" did not finish within 20 ms.',
          retryable: true,
        },
      });
    }
  });
});

describe.each(ADAPTERS)('faults over MCP (%s)', (adapter) => {
  const apps = new TestApps();
  const signals = newSignals();
  const after: Array<{ name: string; code?: string }> = [];
  let mcpUrl: string;

  beforeAll(async () => {
    const { url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: slowTools(signals),
            hooks: [
              {
                afterToolCall: ({ name, result }) =>
                  void after.push({ name, code: result.ok ? undefined : result.error.code }),
              },
            ],
          }),
        ],
      },
      adapter,
    );
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  it.each(ERAS)('cuts a never-settling handler off by its timeout on the %s era', async (era) => {
    const key = `${adapter}-${era}-hang`;
    const answer = await post(
      mcpUrl,
      callBody(era, 'fault_hang', { key }),
      eraHeaders(era, 'tools/call', 'fault_hang'),
    );
    expect(answer.status).toBe(200);
    expect(toolPayload(answer)).toEqual({
      isError: true,
      json: {
        error: 'REQUEST_TIMEOUT',
        message: 'Tool "fault_hang" did not finish within 150 ms.',
        retryable: true,
      },
    });
    expect(signals.aborted.get(key)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    const next = await post(
      mcpUrl,
      callBody(era, 'fault_ok', {}),
      eraHeaders(era, 'tools/call', 'fault_ok'),
    );
    expect(toolPayload(next)).toEqual({ isError: false, json: { ok: true } });
  });

  // Direct answers and the SDK path (a progress token routes through the SDK).
  const paths = [
    { path: 'direct', meta: {} },
    { path: 'SDK', meta: { progressToken: 'p' } },
  ];
  describe.each(ERAS)('%s era', (era) => {
    it.each(paths)(
      'a client that disconnects mid-call aborts its handler ($path)',
      async ({ path, meta }) => {
        const key = `${adapter}-${era}-${path}-gone`;
        const target = new URL(mcpUrl);
        const req = httpRequest({
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: eraHeaders(era, 'tools/call', 'fault_wait'),
        });
        req.on('error', () => {});
        req.end(callBody(era, 'fault_wait', { key }, 1, meta));
        expect(await waitFor(() => signals.started.has(key))).toBe(true);
        req.destroy();
        // The handler would otherwise wait 5 s and answer `{ aborted: false }`, unaborted.
        expect(await waitFor(() => signals.aborted.has(key))).toBe(true);
        expect(signals.aborted.get(key)).toMatchObject({
          name: 'ToolError',
          code: 'REQUEST_ABORTED',
        });
        // The runner finished the call as aborted, once.
        expect(
          await waitFor(() =>
            after.some((entry) => entry.name === 'fault_wait' && entry.code === 'REQUEST_ABORTED'),
          ),
        ).toBe(true);
        const next = await post(
          mcpUrl,
          callBody(era, 'fault_ok', {}),
          eraHeaders(era, 'tools/call', 'fault_ok'),
        );
        expect(toolPayload(next)).toEqual({ isError: false, json: { ok: true } });
      },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Graceful shutdown.

describe.each(ADAPTERS)('app.close() with calls in flight (%s)', (adapter) => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  async function boot(shutdownGraceMs: number) {
    const signals = newSignals();
    const { app, url } = await apps.listen(
      { imports: [ToolsModule.forRoot({ registry: slowTools(signals), shutdownGraceMs })] },
      adapter,
    );
    return { app, mcpUrl: `${url}/mcp`, signals };
  }

  it('lets running calls finish within shutdownGraceMs and refuses new ones, in-process and on MCP', async () => {
    // A grace period far beyond the test's timeout: a close that waited it out fails the test.
    const { app, mcpUrl, signals } = await boot(10 * 60_000);
    const invoker = app.get(ToolInvoker);
    // One call in-process, and one per era and path on MCP, each held until released.
    const inProcess = invoker.invoke('fault_hold', { key: 'in-process' }, { transport: 'AGENT' });
    const remote = ERAS.flatMap((era) =>
      [{}, { progressToken: 'p' }].map((meta, i) => {
        const key = `${era}-${i === 0 ? 'direct' : 'sdk'}`;
        return {
          key,
          answer: post(
            mcpUrl,
            callBody(era, 'fault_hold', { key }, key, meta),
            eraHeaders(era, 'tools/call', 'fault_hold'),
            { timeoutMs: 20_000 },
          ),
        };
      }),
    );
    const keys = ['in-process', ...remote.map((r) => r.key)];
    expect(await waitFor(() => keys.every((key) => signals.started.has(key)))).toBe(true);

    const closed = app.close().then(() => void signals.events.push('closed'));
    apps.forget(app);

    // New calls are refused with a clear, retryable error as soon as the shutdown starts.
    let refused: ToolResult | undefined;
    const isRefused = async () => {
      refused = await invoker.invoke('fault_ok', {}, { transport: 'AGENT' });
      return !refused.ok;
    };
    expect(await waitFor(isRefused)).toBe(true);
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The application is shutting down; retry the call.',
        retryable: true,
      },
    });
    for (const era of ERAS) {
      const answer = await post(
        mcpUrl,
        callBody(era, 'fault_ok', {}),
        eraHeaders(era, 'tools/call', 'fault_ok'),
      );
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.messages?.[0]).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Server is shutting down; retry the request.' },
        id: null,
      });
    }
    // The close is still waiting for the running calls.
    expect(signals.events).toEqual([]);

    signals.release.resolve();
    // Running calls finish with their own results, their signals untouched.
    expect(await inProcess).toEqual({ ok: true, data: { held: true, key: 'in-process' } });
    for (const { key, answer } of remote) {
      const done = await answer;
      expect({ key, status: done.status }).toEqual({ key, status: 200 });
      expect(finalMessage(done)?.id).toBe(key);
      expect(toolPayload(done)).toEqual({ isError: false, json: { held: true, key } });
    }
    // The close resolved once every running call had finished, long before its grace period.
    await closed;
    expect(signals.events.slice(0, -1).sort()).toEqual(keys.map((key) => `finished:${key}`).sort());
    expect(signals.events.at(-1)).toBe('closed');
    expect([...signals.aborted.keys()]).toEqual([]);
  });

  it('answers SERVICE_UNAVAILABLE and aborts the signal of a call still running when the grace period ends', async () => {
    const { app, mcpUrl, signals } = await boot(300);
    const invoker = app.get(ToolInvoker);
    const running = invoker.invoke('fault_wait', { key: 'stubborn' }, { transport: 'AGENT' });
    const remote = post(
      mcpUrl,
      callBody('legacy', 'fault_wait', { key: 'stubborn-mcp' }),
      eraHeaders('legacy'),
      { timeoutMs: 10_000 },
    ).catch((error: Error) => error);
    expect(
      await waitFor(() => signals.started.has('stubborn') && signals.started.has('stubborn-mcp')),
    ).toBe(true);
    // Left alone, fault_wait gives up after 5 s unaborted: a SERVICE_UNAVAILABLE abort below can
    // only come from the end of the grace period.
    await app.close();
    apps.forget(app);
    for (const key of ['stubborn', 'stubborn-mcp']) {
      expect(signals.aborted.get(key)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    }
    // The runner stops waiting as it aborts the signal: the caller's answer is the shutdown's,
    // on both surfaces, whatever the handler does next.
    expect(await running).toEqual({
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The application is shutting down; retry the call.',
        retryable: true,
      },
    });
    const answer = await remote;
    expect(answer).not.toBeInstanceOf(Error);
    expect(
      JSON.parse((answer as { messages: any[] }).messages.at(-1).result.content[0].text),
    ).toEqual({
      error: 'SERVICE_UNAVAILABLE',
      message: 'The application is shutting down; retry the call.',
      retryable: true,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Hooks, guards, resolvers and outputs that fail, in random order, between normal calls.

const FAULTS = {
  none: { code: undefined, handled: true },
  'before-error': { code: 'INTERNAL_SERVER_ERROR', handled: false },
  'before-tool-error': { code: 'RATE_LIMITED', handled: false },
  'after-throws': { code: undefined, handled: true },
  'on-error-throws': { code: 'INTERNAL_SERVER_ERROR', handled: true },
  'guard-error': { code: 'INTERNAL_SERVER_ERROR', handled: false },
  'guard-tool-error': { code: 'UNAUTHORIZED', handled: false },
  'guard-http-exception': { code: 'FORBIDDEN', handled: false },
  'guard-false': { code: 'FORBIDDEN', handled: false },
  'resolver-throws': { code: 'INTERNAL_SERVER_ERROR', handled: false },
  'output-mismatch': { code: 'INTERNAL_SERVER_ERROR', handled: true },
  'handler-throws': { code: 'INTERNAL_SERVER_ERROR', handled: true },
} as const;
type Fault = keyof typeof FAULTS;
const FAULT_NAMES = Object.keys(FAULTS) as Fault[];
const SECRET = 'secret 10.0.0.9 at /work/main/lib/db.ts:1:1';

const faultOf = (value: unknown): Fault | undefined =>
  typeof value === 'object' && value !== null
    ? ((value as { fault?: Fault }).fault ?? undefined)
    : undefined;

function faultModule(handled: string[]) {
  const probe = defineRuntimeTool({
    name: 'fault_probe',
    description: 'Fails as told',
    identity: { serviceName: 'fault', action: 'probe', method: 'POST' },
    input: z.object({ fault: z.enum(FAULT_NAMES as [Fault, ...Fault[]]) }),
    output: z.object({ fault: z.string() }),
    handler: ({ input }) => {
      handled.push(input.fault);
      if (input.fault === 'handler-throws' || input.fault === 'on-error-throws')
        throw new Error(SECRET);
      if (input.fault === 'output-mismatch') return { fault: 42 } as never;
      return { fault: input.fault };
    },
  });
  const hooks: ToolHooks = {
    beforeToolCall: ({ args }) => {
      if (faultOf(args) === 'before-error') throw new Error(SECRET);
      if (faultOf(args) === 'before-tool-error')
        throw new ToolError('RATE_LIMITED', { message: 'Slow down' });
      return undefined;
    },
    afterToolCall: ({ args }) => {
      if (faultOf(args) === 'after-throws') throw new Error(SECRET);
    },
    onToolError: ({ args }) => {
      if (faultOf(args) === 'on-error-throws') throw new Error(SECRET);
    },
  };
  const guard: ToolGuard = {
    canActivate: ({ input }) => {
      const fault = faultOf(input);
      if (fault === 'guard-error') throw new Error(SECRET);
      if (fault === 'guard-tool-error')
        throw new ToolError('UNAUTHORIZED', { message: 'Who are you?' });
      if (fault === 'guard-http-exception') throw new ForbiddenException('Not for you');
      return fault !== 'guard-false';
    },
    // Listing filters by the caller's context, so tools/list resolves it too.
    canList: () => true,
  };
  const context = (request: { headers: Record<string, string> }) => {
    if (request.headers['x-fault'] === 'resolver-throws') throw new Error(SECRET);
    return { tenantId: 'acme' };
  };
  return ToolsModule.forRoot({ registry: [probe], hooks: [hooks], guards: [guard], context });
}

describe.each(ADAPTERS)('failing hooks, guards, resolvers and outputs (%s)', (adapter) => {
  const apps = new TestApps();
  const handled: string[] = [];
  let app: INestApplication;
  let mcpUrl: string;

  beforeAll(async () => {
    let url: string;
    ({ app, url } = await apps.listen({ imports: [faultModule(handled)] }, adapter));
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  function expectOutcome(fault: Fault, result: ToolResult, label: string): void {
    const { code } = FAULTS[fault];
    if (code === undefined) {
      expect({ label, fault, result }).toEqual({
        label,
        fault,
        result: { ok: true, data: { fault } },
      });
    } else {
      expect({ label, fault, code: result.ok ? 'ok' : result.error.code }).toEqual({
        label,
        fault,
        code,
      });
    }
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('10.0.0.9');
  }

  /** One call, in-process under a hand-made request, or over MCP on an era. */
  async function call(fault: Fault, surface: 'in-process' | Era): Promise<ToolResult> {
    const headers = { 'x-fault': fault };
    if (surface === 'in-process') {
      return app
        .get(ToolRequestContext)
        .run({ headers }, () =>
          app.get(ToolInvoker).invoke('fault_probe', { fault }, { transport: 'AGENT' }),
        );
    }
    const answer = await post(mcpUrl, callBody(surface, 'fault_probe', { fault }), {
      ...eraHeaders(surface, 'tools/call', 'fault_probe'),
      ...headers,
    });
    expect(answer.status).toBe(200);
    const { isError, json } = toolPayload(answer);
    return isError
      ? { ok: false, error: { code: json.error, message: json.message, retryable: json.retryable } }
      : { ok: true, data: finalMessage(answer).result.structuredContent };
  }

  it('yields each fault its defined result, in any order, and the next call works', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom(...FAULT_NAMES),
            fc.constantFrom('in-process' as const, ...ERAS),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          for (const [fault, surface] of steps) {
            const before = handled.length;
            expectOutcome(fault, await call(fault, surface), `${surface}`);
            // Refused calls never reached the handler.
            expect(handled.length).toBe(before + (FAULTS[fault].handled ? 1 : 0));
            // And the next call works.
            expectOutcome('none', await call('none', surface), `${surface} after ${fault}`);
          }
        },
      ),
      fcParams(25),
    );
  });

  it('a context resolver that throws answers tools/list with -32603 "Internal error" on both paths', async () => {
    for (const era of ERAS) {
      // Without a cursor the endpoint answers directly; with one, the SDK answers.
      for (const params of [{}, { cursor: 'x' }]) {
        const body = listBody(era, 7, params);
        const answer = await post(mcpUrl, body, {
          ...eraHeaders(era, 'tools/list'),
          'x-fault': 'resolver-throws',
        });
        expect({ era, params, status: answer.status, last: finalMessage(answer) }).toEqual({
          era,
          params,
          status: 200,
          last: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } },
        });
        const list = await post(mcpUrl, body, eraHeaders(era, 'tools/list'));
        expect(finalMessage(list).result.tools.map((tool: { name: string }) => tool.name)).toEqual([
          'fault_probe',
        ]);
      }
    }
  });
});
