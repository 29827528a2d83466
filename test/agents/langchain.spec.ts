import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { z } from 'zod';
import { createLangChainTools } from '../../lib/langchain/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import {
  ToolError,
  createToolInvoker,
  defineRuntimeTool,
  type AfterToolCallEvent,
} from '../../lib/index.js';
import { deferred } from '../fixtures/timing.js';

const getOrder = defineRuntimeTool({
  description: 'Fetch one order',
  identity: { serviceName: 'orders', action: 'get', method: 'GET' },
  input: z.object({
    id: z.string().min(2).describe('The order id'),
    expand: z.boolean().optional(),
  }),
  output: z.object({ id: z.string(), tenantId: z.unknown(), toolCallId: z.unknown() }),
  handler: ({ input, context }) => ({
    id: input.id,
    tenantId: context.tenantId,
    toolCallId: context.toolCallId,
  }),
});

const cancelOrder = defineRuntimeTool({
  description: 'Cancel an order',
  identity: { serviceName: 'orders', action: 'cancel', method: 'POST' },
  input: z.object({ id: z.string() }),
  handler: ({ input }) => {
    throw new ToolError('CONFLICT', {
      message: `Order ${input.id} has shipped`,
      details: { orderId: input.id },
      hint: 'Offer a refund instead',
    });
  },
});

const greet = defineRuntimeTool({
  description: 'Greet someone',
  identity: { serviceName: 'greeter', action: 'greet', method: 'GET' },
  input: z.object({ name: z.string() }),
  handler: ({ input }) => `Hello, ${input.name}`,
});

const mcpOnly = defineRuntimeTool({
  description: 'Only for MCP clients',
  identity: { serviceName: 'orders', action: 'export', method: 'GET' },
  input: z.object({}),
  transports: ['MCP'],
  handler: () => 'csv',
});

const conflict = {
  error: 'CONFLICT',
  message: 'Order o1 has shipped',
  retryable: false,
  details: { orderId: 'o1' },
  hint: 'Offer a refund instead',
};

function recordingInvoker() {
  const calls: AfterToolCallEvent[] = [];
  const invoker = createToolInvoker([getOrder, cancelOrder, greet, mcpOnly], {
    hooks: { afterToolCall: (options) => void calls.push(options) },
  });
  return { invoker, calls };
}

describe('createLangChainTools', () => {
  it('exposes every AGENT tool with exactly its cached JSON Schema', () => {
    const { invoker } = recordingInvoker();
    const tools = createLangChainTools(invoker);

    expect(tools.map((tool) => tool.name)).toEqual([
      'orders_get',
      'orders_cancel',
      'greeter_greet',
    ]);
    for (const descriptor of invoker.manifest('AGENT')) {
      const tool = tools.find(({ name }) => name === descriptor.name)!;
      expect(tool.description).toBe(descriptor.description);
      // What LangChain's converters hand a provider.
      expect(toJsonSchema(tool.schema)).toEqual(descriptor.inputSchema);
      expect(convertToOpenAITool(tool).function.parameters).toEqual(descriptor.inputSchema);
    }
    expect(
      createLangChainTools(invoker, { include: ['greeter_greet'] }).map(({ name }) => name),
    ).toEqual(['greeter_greet']);
    expect(() => createLangChainTools(invoker, { exclude: ['orders_export'] })).toThrow(
      CORE_MESSAGES.notExposed(
        'createLangChainTools',
        'exclude',
        'AGENT',
        'Unknown tool "orders_export".',
      ),
    );
  });

  it("runs an agent loop with LangChain's fake chat model: results, the envelope, validation in the runner", async () => {
    const { invoker, calls } = recordingInvoker();
    const tools = createLangChainTools(invoker, { context: { tenantId: 'acme' } });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const model = fakeModel()
      .respondWithTools([
        { name: 'orders_get', args: { id: 'o1' }, id: 'lc-1' },
        { name: 'greeter_greet', args: { name: 'Ada' }, id: 'lc-2' },
        { name: 'orders_cancel', args: { id: 'o1' }, id: 'lc-3' },
        { name: 'orders_get', args: { id: 5 }, id: 'lc-4' },
      ])
      .respond(new AIMessage('All done'));
    const agent = model.bindTools(tools);

    // The loop an agent runs: ask the model, run its tool calls in parallel, hand the results back.
    const messages: BaseMessage[] = [new HumanMessage('Show o1, greet Ada, cancel o1')];
    const first = await agent.invoke(messages);
    const results = await Promise.all(
      (first.tool_calls ?? []).map((call) => byName.get(call.name)!.invoke(call)),
    );
    messages.push(first, ...results);
    const last = await agent.invoke(messages);

    expect(last.content).toBe('All done');
    const seen = model.calls[1].messages.filter(ToolMessage.isInstance);
    expect(seen.map(({ tool_call_id, name, status }) => ({ tool_call_id, name, status }))).toEqual([
      { tool_call_id: 'lc-1', name: 'orders_get', status: 'success' },
      { tool_call_id: 'lc-2', name: 'greeter_greet', status: 'success' },
      { tool_call_id: 'lc-3', name: 'orders_cancel', status: 'error' },
      { tool_call_id: 'lc-4', name: 'orders_get', status: 'error' },
    ]);
    expect(JSON.parse(seen[0].content as string)).toEqual({
      id: 'o1',
      tenantId: 'acme',
      toolCallId: 'lc-1',
    });
    expect(seen[1].content).toBe('Hello, Ada');
    expect(JSON.parse(seen[2].content as string)).toEqual(conflict);
    // LangChain handed the invalid arguments through; the runner refused them.
    expect(JSON.parse(seen[3].content as string)).toEqual({
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('id:'),
      retryable: false,
      details: {
        target: 'input',
        issues: [{ path: 'id', code: 'invalid_type', message: expect.any(String) }],
      },
    });

    // The hooks' view of the four calls.
    expect(
      calls.map(({ name, call, context, result }) => ({
        name,
        source: call.source,
        transport: call.transport,
        toolCallId: context.toolCallId,
        tenantId: context.tenantId,
        ok: result.ok,
      })),
    ).toEqual(
      expect.arrayContaining([
        {
          name: 'orders_get',
          source: 'langchain',
          transport: 'AGENT',
          toolCallId: 'lc-1',
          tenantId: 'acme',
          ok: true,
        },
        {
          name: 'greeter_greet',
          source: 'langchain',
          transport: 'AGENT',
          toolCallId: 'lc-2',
          tenantId: 'acme',
          ok: true,
        },
        {
          name: 'orders_cancel',
          source: 'langchain',
          transport: 'AGENT',
          toolCallId: 'lc-3',
          tenantId: 'acme',
          ok: false,
        },
        {
          name: 'orders_get',
          source: 'langchain',
          transport: 'AGENT',
          toolCallId: 'lc-4',
          tenantId: 'acme',
          ok: false,
        },
      ]),
    );
    expect(calls).toHaveLength(4);
  });

  it('returns text when invoked with plain arguments: the data, or the envelope', async () => {
    const { invoker, calls } = recordingInvoker();
    const [get, cancel] = createLangChainTools(invoker, { source: 'ops-script' });

    await expect(get.invoke({ id: 'o2' })).resolves.toBe('{"id":"o2"}');
    await expect(cancel.invoke({ id: 'o1' })).resolves.toBe(JSON.stringify(conflict));
    // Too short for the Zod schema: the runner's validation answers, not a LangChain exception.
    const invalid = JSON.parse((await get.invoke({ id: 'x' })) as string);
    expect(invalid).toMatchObject({ error: 'VALIDATION_ERROR', details: { target: 'input' } });
    expect(invalid.details.issues[0]).toMatchObject({ path: 'id', code: 'too_small' });
    expect(calls.map(({ call }) => call.source)).toEqual([
      'ops-script',
      'ops-script',
      'ops-script',
    ]);
    expect(calls.every(({ context }) => !('toolCallId' in context))).toBe(true);
  });

  it("cancels the call with the run's abort signal", async () => {
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
    const [wait] = createLangChainTools(createToolInvoker([slow]));
    const controller = new AbortController();

    const pending = wait.invoke({}, { signal: controller.signal });
    await started.promise;
    expect(handlerSignal?.aborted).toBe(false);
    // LangChain rejects a run with its signal's reason (a reason-less abort's default reason is a
    // DOMException from another realm under Jest, which LangChain would replace by "Aborted").
    const reason = new Error('user pressed stop');
    controller.abort(reason);

    await expect(pending).rejects.toBe(reason);
    expect(handlerSignal?.aborted).toBe(true);
    expect(handlerSignal?.reason).toMatchObject({ name: 'ToolError', code: 'REQUEST_ABORTED' });
  });
});
