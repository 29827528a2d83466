import 'reflect-metadata';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { Inject, Injectable, Module, type INestApplication } from '@nestjs/common';
import { generateText, isStepCount, type ToolSet } from 'ai';
import { z } from 'zod';
import { AgentToolError, createAgentTools } from '../../lib/ai/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import {
  Tool,
  ToolError,
  ToolFactory,
  ToolInvoker,
  ToolsModule,
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  type AfterToolCallEvent,
  type ToolCall,
  type ToolContext,
  type ToolErrorEvent,
} from '../../lib/index.js';
import { TestApps } from '../fixtures/apps.js';
import { deferred } from '../fixtures/timing.js';
import { scriptedModel, toolCall, toolResultsSeen } from '../fixtures/scripted-model.js';

/** Resolves once `count` parties have arrived; fails loudly instead of hanging. */
function barrier(count: number, timeoutMs = 5000) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    if (++arrived === count) open();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      opened,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`only ${arrived} of ${count} calls ran in parallel`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  };
}

/** Records what hooks see of each call. */
function recordingHooks() {
  const seen: Array<{
    phase: 'before' | 'after' | 'error';
    name: string;
    source: string;
    transport: string;
    toolCallId: unknown;
    tenantId: unknown;
    ok?: boolean;
    error?: unknown;
  }> = [];
  const view = (
    phase: 'before' | 'after' | 'error',
    {
      name,
      call,
      context,
    }: { name: string; call: { source: string; transport: string }; context: ToolContext },
  ) => ({
    phase,
    name,
    source: call.source,
    transport: call.transport,
    toolCallId: context.toolCallId,
    tenantId: context.tenantId,
  });
  return {
    seen,
    hooks: {
      beforeToolCall: (options: Parameters<typeof view>[1]) => {
        seen.push(view('before', options));
      },
      afterToolCall: (options: AfterToolCallEvent) => {
        seen.push({ ...view('after', options), ok: options.result.ok });
      },
      onToolError: (options: ToolErrorEvent) => {
        seen.push({ ...view('error', options), error: options.error });
      },
    },
  };
}

const orders = createRuntimeToolFactory({
  serviceName: 'orders',
  context: z.object({ tenantId: z.string(), toolCallId: z.string() }),
});

const Order = z.object({ id: z.string(), tenantId: z.string(), toolCallId: z.string() });

function orderTools(arrive: () => Promise<void> = async () => {}) {
  return [
    orders.define({
      action: 'get',
      method: 'GET',
      description: 'Fetch one order',
      input: z.object({ id: z.string() }),
      output: Order,
      handler: async ({ input, context }) => {
        await arrive();
        // The handler sees its own call's parsed context, even with its sibling in flight.
        return { id: input.id, tenantId: context.tenantId, toolCallId: context.toolCallId };
      },
    }),
    orders.define({
      action: 'cancel',
      method: 'POST',
      description: 'Cancel an order',
      input: z.object({ id: z.string() }),
      handler: ({ input }) => {
        throw new ToolError('CONFLICT', {
          message: `Order ${input.id} has shipped`,
          details: { orderId: input.id },
          hint: 'Offer a refund instead',
        });
      },
    }),
    orders.define({
      action: 'summary',
      method: 'GET',
      description: 'Summarise the open orders',
      input: z.object({}),
      output: z.object({ count: z.number(), total: z.number() }),
      present: { agent: ({ count, total }) => `${count} open orders, ${total} EUR in total` },
      handler: () => ({ count: 2, total: 30 }),
    }),
    defineRuntimeTool({
      description: 'Only for MCP clients',
      identity: { serviceName: 'orders', action: 'export', method: 'GET' },
      input: z.object({}),
      transports: ['MCP'],
      handler: () => 'csv',
    }),
  ];
}

describe('createAgentTools (AI SDK)', () => {
  it('hands the model every AGENT tool with its cached JSON Schema, and nothing else', () => {
    const invoker = createToolInvoker(orderTools());
    const tools = createAgentTools(invoker);

    expect(Object.keys(tools)).toEqual(['orders_get', 'orders_cancel', 'orders_summary']);
    for (const descriptor of invoker.manifest('AGENT')) {
      const tool = tools[descriptor.name] as ToolSet[string] & {
        inputSchema: { jsonSchema: unknown };
      };
      expect(tool.description).toBe(descriptor.description);
      expect(tool.inputSchema.jsonSchema).toBe(descriptor.inputSchema);
    }
    expect(tools.orders_summary.toModelOutput).toEqual(expect.any(Function));
    expect(tools.orders_get.toModelOutput).toBeUndefined();
  });

  it('narrows the set with include and exclude, and refuses names it does not expose', () => {
    const invoker = createToolInvoker(orderTools());

    expect(
      Object.keys(createAgentTools(invoker, { include: ['orders_get', 'orders_summary'] })),
    ).toEqual(['orders_get', 'orders_summary']);
    expect(Object.keys(createAgentTools(invoker, { exclude: ['orders_cancel'] }))).toEqual([
      'orders_get',
      'orders_summary',
    ]);
    expect(() => createAgentTools(invoker, { include: ['orders_gte'] })).toThrow(
      CORE_MESSAGES.notExposed(
        'createAgentTools',
        'include',
        'AGENT',
        'Unknown tool "orders_gte". Did you mean "orders_get"?',
      ),
    );
    expect(() => createAgentTools(invoker, { exclude: ['orders_export'] })).toThrow(
      CORE_MESSAGES.notExposed(
        'createAgentTools',
        'exclude',
        'AGENT',
        'Unknown tool "orders_export".',
      ),
    );
  });

  it('runs a generateText loop: parallel calls, a failure, per-call context, and the hooks see the agent', async () => {
    const arrive = barrier(4); // two parallel calls in each of two concurrent agent runs
    const { seen, hooks } = recordingHooks();
    const invoker = createToolInvoker(orderTools(arrive), { hooks });

    const runAgent = async (tenantId: string) => {
      const model = scriptedModel(
        [
          toolCall(`${tenantId}-1`, 'orders_get', { id: 'o1' }),
          toolCall(`${tenantId}-2`, 'orders_get', { id: 'o2' }),
          toolCall(`${tenantId}-3`, 'orders_cancel', { id: 'o1' }),
        ],
        [{ type: 'text', text: `done for ${tenantId}` }],
      );
      const result = await generateText({
        model,
        tools: createAgentTools(invoker, { context: { tenantId } }),
        stopWhen: isStepCount(3),
        prompt: 'Cancel order o1 and show me o1 and o2',
      });
      return { model, result };
    };

    const [acme, globex] = await Promise.all([runAgent('acme'), runAgent('globex')]);

    for (const [tenantId, { model, result }] of [
      ['acme', acme],
      ['globex', globex],
    ] as const) {
      expect(result.text).toBe(`done for ${tenantId}`);
      expect(model.doGenerateCalls).toHaveLength(2);
      // What the model read in step 2: the data of each success, the JSON envelope of the failure.
      expect(toolResultsSeen(model, 1)).toEqual([
        {
          toolCallId: `${tenantId}-1`,
          toolName: 'orders_get',
          output: { type: 'json', value: { id: 'o1', tenantId, toolCallId: `${tenantId}-1` } },
        },
        {
          toolCallId: `${tenantId}-2`,
          toolName: 'orders_get',
          output: { type: 'json', value: { id: 'o2', tenantId, toolCallId: `${tenantId}-2` } },
        },
        {
          toolCallId: `${tenantId}-3`,
          toolName: 'orders_cancel',
          output: {
            type: 'error-text',
            value: JSON.stringify({
              error: 'CONFLICT',
              message: 'Order o1 has shipped',
              retryable: false,
              details: { orderId: 'o1' },
              hint: 'Offer a refund instead',
            }),
          },
        },
      ]);
      // The SDK recorded the failure as a tool error carrying our error.
      const toolError = result.steps[0].content.find((part) => part.type === 'tool-error');
      expect(toolError?.error).toBeInstanceOf(AgentToolError);
      expect((toolError?.error as AgentToolError).envelope.error).toBe('CONFLICT');
      expect(((toolError?.error as AgentToolError).cause as ToolError).status).toBe(409);
    }

    // The hooks' view: every call came from the agent surface, with its own tool call id and tenant.
    const before = seen.filter(({ phase }) => phase === 'before');
    expect(before).toHaveLength(6);
    for (const entry of seen) {
      expect(entry.source).toBe('agent');
      expect(entry.transport).toBe('AGENT');
      expect(String(entry.toolCallId).startsWith(`${entry.tenantId}-`)).toBe(true);
    }
    expect(before.map(({ toolCallId }) => toolCallId).sort()).toEqual([
      'acme-1',
      'acme-2',
      'acme-3',
      'globex-1',
      'globex-2',
      'globex-3',
    ]);
    const afterCancel = seen.filter(
      ({ phase, name }) => phase === 'after' && name === 'orders_cancel',
    );
    expect(afterCancel.map(({ ok }) => ok)).toEqual([false, false]);
    const errors = seen.filter(({ phase }) => phase === 'error');
    expect(errors).toHaveLength(2);
    expect(errors.every(({ error }) => ToolError.is(error))).toBe(true);
  });

  it('validates the input in the runner and presents outputs with present.agent', async () => {
    const { seen, hooks } = recordingHooks();
    const invoker = createToolInvoker(orderTools(), { hooks });
    const model = scriptedModel(
      [toolCall('bad-1', 'orders_get', { id: 42 }), toolCall('sum-1', 'orders_summary', {})],
      [{ type: 'text', text: 'ok' }],
    );

    await generateText({
      model,
      tools: createAgentTools(invoker, { context: { tenantId: 'acme' } }),
      stopWhen: isStepCount(3),
      prompt: 'Show order 42 and a summary',
    });

    const [invalid, summary] = toolResultsSeen(model, 1);
    expect(invalid.output.type).toBe('error-text');
    expect(JSON.parse((invalid.output as { value: string }).value)).toEqual({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('id:'),
      retryable: false,
      details: {
        target: 'input',
        issues: [{ path: 'id', code: 'invalid_type', message: expect.any(String) }],
      },
    });
    expect(summary.output).toEqual({ type: 'text', value: '2 open orders, 30 EUR in total' });
    // The runner, not the SDK, refused the input: the hooks saw the call and its outcome.
    expect(seen).toContainEqual(
      expect.objectContaining({
        phase: 'after',
        name: 'orders_get',
        toolCallId: 'bad-1',
        ok: false,
      }),
    );
  });

  it('keeps a success a success when the presenter fails, and passes ToolResultOutputs through', async () => {
    const logger = { error: jest.fn() };
    const make = (agent: (output: { n: number }) => unknown) =>
      defineRuntimeTool({
        description: 'Count',
        identity: { serviceName: 'stats', action: 'count', method: 'GET' },
        input: z.object({}),
        output: z.object({ n: z.number() }),
        present: { agent },
        handler: () => ({ n: 3 }),
      });
    const present = async (agent: (output: { n: number }) => unknown) => {
      const tools = createAgentTools(createToolInvoker([make(agent)]), { logger });
      return tools.stats_count.toModelOutput!({ toolCallId: 't1', input: {}, output: { n: 3 } });
    };

    await expect(
      present(() => ({ type: 'content', value: [{ type: 'text', text: 'three' }] })),
    ).resolves.toEqual({
      type: 'content',
      value: [{ type: 'text', text: 'three' }],
    });
    await expect(present(({ n }) => ({ doubled: n * 2 }))).resolves.toEqual({
      type: 'json',
      value: { doubled: 6 },
    });
    await expect(
      present(() => {
        throw new Error('presenter bug');
      }),
    ).resolves.toEqual({ type: 'json', value: { n: 3 } });
    expect(logger.error).toHaveBeenCalledWith(
      '[toolwright] agent presenter failed for "stats_count":',
      expect.objectContaining({ message: 'presenter bug' }),
    );
  });

  it("cancels the call with the SDK's abort signal", async () => {
    let handlerSignal: AbortSignal | undefined;
    const started = deferred();
    const slow = defineRuntimeTool({
      description: 'Wait for a while',
      identity: { serviceName: 'clock', action: 'wait', method: 'GET' },
      input: z.object({}),
      handler: ({ signal }) => {
        handlerSignal = signal;
        started.resolve();
        return new Promise(() => {});
      },
    });
    const tools = createAgentTools(createToolInvoker([slow]));
    const controller = new AbortController();

    const pending = Promise.resolve(
      tools.clock_wait.execute!(
        {},
        { toolCallId: 'w1', messages: [], abortSignal: controller.signal, context: {} },
      ),
    );
    await started.promise;
    expect(handlerSignal?.aborted).toBe(false);
    controller.abort();

    const error = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AgentToolError);
    expect((error as AgentToolError).envelope.error).toBe('REQUEST_ABORTED');
    expect(String(error)).toBe((error as AgentToolError).message);
    expect(handlerSignal?.aborted).toBe(true);
  });
});

describe('createAgentTools with Nest', () => {
  const apps = new TestApps();
  let app: INestApplication;
  afterAll(() => apps.closeAll());

  @Injectable()
  class Greeter {
    greet(name: string) {
      return `Hello, ${name}`;
    }
  }

  @ToolFactory({ serviceName: 'greeter', context: z.object({ tenantId: z.string() }) })
  @Injectable()
  class GreeterTools {
    constructor(@Inject(Greeter) private readonly greeter: Greeter) {}

    @Tool({
      action: 'greet',
      method: 'GET',
      description: 'Greet someone',
      input: z.object({ name: z.string() }),
    })
    greet({ input, context }: ToolCall<{ name: string }, { tenantId: string }>) {
      return { text: this.greeter.greet(input.name), tenantId: context.tenantId };
    }
  }

  const AGENT_TOOLS = Symbol('AGENT_TOOLS');
  type AgentToolsFactory = (context: ToolContext) => ToolSet;

  @Module({
    providers: [
      {
        provide: AGENT_TOOLS,
        inject: [ToolInvoker],
        useFactory:
          (tools: ToolInvoker): AgentToolsFactory =>
          (context) =>
            createAgentTools(tools, { context, source: 'support-bot' }),
      },
    ],
    exports: [AGENT_TOOLS],
  })
  class AgentModule {}

  it('builds the tool set from the injectable ToolInvoker, through a factory provider', async () => {
    const { seen, hooks } = recordingHooks();
    app = await apps.init({
      imports: [ToolsModule.forRoot({ registry: [GreeterTools], hooks: [hooks] }), AgentModule],
      providers: [Greeter, GreeterTools],
    });
    const agentTools = app.get<AgentToolsFactory>(AGENT_TOOLS);
    const model = scriptedModel(
      [toolCall('g1', 'greeter_greet', { name: 'Ada' })],
      [{ type: 'text', text: 'greeted' }],
    );

    const result = await generateText({
      model,
      tools: agentTools({ tenantId: 'acme' }),
      stopWhen: isStepCount(3),
      prompt: 'Greet Ada',
    });

    expect(result.text).toBe('greeted');
    expect(toolResultsSeen(model, 1)).toEqual([
      {
        toolCallId: 'g1',
        toolName: 'greeter_greet',
        output: { type: 'json', value: { text: 'Hello, Ada', tenantId: 'acme' } },
      },
    ]);
    expect(seen.filter(({ phase }) => phase === 'before')).toEqual([
      {
        phase: 'before',
        name: 'greeter_greet',
        source: 'support-bot',
        transport: 'AGENT',
        toolCallId: 'g1',
        tenantId: 'acme',
      },
    ]);
  });
});
