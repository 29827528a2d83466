/**
 * The `execute_tool` spans of the agent surfaces: the AI SDK tool set (`createAgentTools`) and
 * LangChain tools (`createLangChainTools`) record the model's tool-call id as
 * `gen_ai.tool.call.id`, with transport AGENT and their source; their spans sit under the
 * agent's active span; nested calls get their own ids.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { generateText, isStepCount } from 'ai';
import { scriptedModel, toolCall } from '../fixtures/scripted-model.js';
import { z } from 'zod';
import { AgentToolError, createAgentTools } from '../../lib/ai/index.js';
import { createLangChainTools } from '../../lib/langchain/index.js';
import {
  ToolError,
  createToolInvoker,
  defineRuntimeTool,
  type ToolCallInfo,
} from '../../lib/core/index.js';
import {
  only,
  parentId,
  registerTelemetry,
  spanId,
  summary,
  traceId,
  tree,
  type TestTelemetry,
} from './support.js';

// ---------------------------------------------------------------------------------------------
// Tools and an invoker that records each call's info.

const calls: ToolCallInfo[] = [];
const callOf = (name: string) => {
  const found = calls.filter((call) => call.name === name);
  if (found.length !== 1) throw new Error(`${found.length} calls of ${name}`);
  return found[0];
};

const getOrder = defineRuntimeTool({
  description: 'Fetch one order',
  identity: { serviceName: 'orders', action: 'get', method: 'GET' },
  input: z.object({ id: z.string() }),
  handler: ({ input }) => ({ id: input.id, status: 'shipped' }),
});

const cancelOrder = defineRuntimeTool({
  description: 'Cancel an order',
  identity: { serviceName: 'orders', action: 'cancel', method: 'POST' },
  input: z.object({ id: z.string() }),
  handler: ({ input }) => {
    throw new ToolError('CONFLICT', { message: `Order ${input.id} has shipped` });
  },
});

const summarize = defineRuntimeTool({
  description: 'Summarize an order',
  identity: { serviceName: 'orders', action: 'summarize', method: 'GET' },
  input: z.object({ id: z.string() }),
  handler: async ({ input }) => {
    const order = await invoker.invokeOrThrow<{ status: string }>(
      'orders_get',
      { id: input.id },
      { transport: 'AGENT' },
    );
    return `Order ${input.id} is ${order.status}`;
  },
});

const invoker = createToolInvoker([getOrder, cancelOrder, summarize], {
  hooks: { afterToolCall: ({ call }) => void calls.push(call) },
});

/** The span of a call made by an agent surface. */
function agentSpan(call: ToolCallInfo, description: string, toolCallId: string, source: string) {
  return {
    name: `execute_tool ${call.name}`,
    kind: SpanKind.INTERNAL,
    status: { code: SpanStatusCode.UNSET },
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': toolCallId,
      'gen_ai.tool.description': description,
      'toolwright.call.id': call.id,
      'toolwright.transport': 'AGENT',
      'toolwright.source': source,
      'toolwright.call.depth': call.depth,
    },
    events: [],
    links: [],
  };
}

let telemetry: TestTelemetry;
const tracer = trace.getTracer('test');

beforeAll(() => {
  telemetry = registerTelemetry();
});
afterAll(() => telemetry.shutdown());
beforeEach(async () => {
  calls.length = 0;
  await telemetry.reset();
});

// ---------------------------------------------------------------------------------------------

describe('the AI SDK tool set (createAgentTools)', () => {
  it("execute: gen_ai.tool.call.id is the model's tool-call id, transport AGENT, source agent", async () => {
    const tools = createAgentTools(invoker);
    const output = await tools.orders_get.execute!(
      { id: 'o-1' },
      { toolCallId: 'call_abc123', messages: [], context: {} },
    );
    expect(output).toEqual({ id: 'o-1', status: 'shipped' });

    const call = callOf('orders_get');
    expect(call.id).not.toBe('call_abc123');
    expect((await telemetry.spans()).map(summary)).toEqual([
      agentSpan(call, 'Fetch one order', 'call_abc123', 'agent'),
    ]);
  });

  it('a failure: the AgentToolError for the model, the code and message on the span', async () => {
    const tools = createAgentTools(invoker, { source: 'support-bot' });
    const error = await Promise.resolve(
      tools.orders_cancel.execute!(
        { id: 'o-2' },
        { toolCallId: 'call_cancel', messages: [], context: {} },
      ),
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AgentToolError);

    const call = callOf('orders_cancel');
    expect((await telemetry.spans()).map(summary)).toEqual([
      {
        ...agentSpan(call, 'Cancel an order', 'call_cancel', 'support-bot'),
        status: { code: SpanStatusCode.ERROR, message: 'Order o-2 has shipped' },
        attributes: {
          ...agentSpan(call, 'Cancel an order', 'call_cancel', 'support-bot').attributes,
          'error.type': 'CONFLICT',
        },
      },
    ]);
  });

  it('generateText: each tool call of the model under the agent’s span, with its own id; nested calls with theirs', async () => {
    const model = scriptedModel(
      [
        toolCall('tc-1', 'orders_get', { id: 'o-1' }),
        toolCall('tc-2', 'orders_summarize', { id: 'o-2' }),
      ],
      [{ type: 'text', text: 'Done' }],
    );
    const text = await tracer.startActiveSpan('agent run', async (span) => {
      try {
        const result = await generateText({
          model,
          tools: createAgentTools(invoker),
          stopWhen: isStepCount(3),
          prompt: 'Show o-1 and summarize o-2',
        });
        return result.text;
      } finally {
        span.end();
      }
    });
    expect(text).toBe('Done');

    const spans = await telemetry.spans();
    // The tool calls start in the model's order; the nested call under the call that made it.
    expect(tree(spans)).toEqual([
      'agent run',
      '  execute_tool orders_get',
      '  execute_tool orders_summarize',
      '    execute_tool orders_get',
    ]);
    const run = only(spans, 'agent run');
    const summarySpan = only(spans, 'execute_tool orders_summarize');
    const gets = spans.filter((span) => span.name === 'execute_tool orders_get');
    const topGet = gets.find((span) => parentId(span) === spanId(run))!;
    const nestedGet = gets.find((span) => parentId(span) === spanId(summarySpan))!;
    expect(parentId(topGet)).toBe(spanId(run));
    expect(parentId(summarySpan)).toBe(spanId(run));
    expect(parentId(nestedGet)).toBe(spanId(summarySpan));
    expect(new Set(spans.map(traceId))).toEqual(new Set([traceId(run)]));

    const byCallId = (span: typeof topGet) =>
      calls.find((call) => call.id === span.attributes['toolwright.call.id'])!;
    expect(summary(topGet)).toEqual(
      agentSpan(byCallId(topGet), 'Fetch one order', 'tc-1', 'agent'),
    );
    expect(summary(summarySpan)).toEqual(
      agentSpan(byCallId(summarySpan), 'Summarize an order', 'tc-2', 'agent'),
    );
    // The nested call is the application's own (source internal), with its own call id.
    const nested = byCallId(nestedGet);
    expect(summary(nestedGet)).toEqual({
      ...agentSpan(nested, 'Fetch one order', nested.id, 'internal'),
    });
    expect(nested.depth).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('LangChain tools (createLangChainTools)', () => {
  const byName = () => new Map(createLangChainTools(invoker).map((tool) => [tool.name, tool]));

  it("invoked with a tool call: gen_ai.tool.call.id is the call's id, transport AGENT, source langchain", async () => {
    const message = await byName()
      .get('orders_get')!
      .invoke({ name: 'orders_get', args: { id: 'o-1' }, id: 'lc-1', type: 'tool_call' });
    expect(ToolMessage.isInstance(message)).toBe(true);
    expect((message as ToolMessage).content).toBe('{"id":"o-1","status":"shipped"}');

    const call = callOf('orders_get');
    expect((await telemetry.spans()).map(summary)).toEqual([
      agentSpan(call, 'Fetch one order', 'lc-1', 'langchain'),
    ]);
  });

  it('invoked with plain arguments: no model id, so the call id', async () => {
    await expect(byName().get('orders_get')!.invoke({ id: 'o-3' })).resolves.toBe(
      '{"id":"o-3","status":"shipped"}',
    );
    const call = callOf('orders_get');
    expect((await telemetry.spans()).map(summary)).toEqual([
      agentSpan(call, 'Fetch one order', call.id, 'langchain'),
    ]);
  });

  it('a failure returned to the model as an error ToolMessage: status ERROR and error.type on the span', async () => {
    const message = (await byName()
      .get('orders_cancel')!
      .invoke({
        name: 'orders_cancel',
        args: { id: 'o-9' },
        id: 'lc-9',
        type: 'tool_call',
      })) as ToolMessage;
    expect(message.status).toBe('error');

    const call = callOf('orders_cancel');
    const expected = agentSpan(call, 'Cancel an order', 'lc-9', 'langchain');
    expect((await telemetry.spans()).map(summary)).toEqual([
      {
        ...expected,
        status: { code: SpanStatusCode.ERROR, message: 'Order o-9 has shipped' },
        attributes: { ...expected.attributes, 'error.type': 'CONFLICT' },
      },
    ]);
  });

  it('an agent loop with the fake chat model: one span per tool call, each with its id, under the agent’s span', async () => {
    const tools = byName();
    const model = fakeModel().respondWithTools([
      { name: 'orders_get', args: { id: 'o-1' }, id: 'lc-a' },
      { name: 'orders_summarize', args: { id: 'o-2' }, id: 'lc-b' },
    ]);
    await tracer.startActiveSpan('agent run', async (span) => {
      const ai = await model.bindTools([...tools.values()]).invoke('Show o-1, summarize o-2');
      await Promise.all(
        (ai.tool_calls ?? []).map((toolCall) => tools.get(toolCall.name)!.invoke(toolCall)),
      );
      span.end();
    });

    const spans = await telemetry.spans();
    const run = only(spans, 'agent run');
    const summarySpan = only(spans, 'execute_tool orders_summarize');
    expect(parentId(summarySpan)).toBe(spanId(run));
    expect(summarySpan.attributes['gen_ai.tool.call.id']).toBe('lc-b');
    const gets = spans.filter((span) => span.name === 'execute_tool orders_get');
    expect(
      gets
        .map((span) => ({
          parent: parentId(span) === spanId(run) ? 'agent run' : 'summarize',
          id: span.attributes['gen_ai.tool.call.id'],
          source: span.attributes['toolwright.source'],
        }))
        .sort((a, b) => a.parent.localeCompare(b.parent)),
    ).toEqual([
      { parent: 'agent run', id: 'lc-a', source: 'langchain' },
      {
        parent: 'summarize',
        id: gets.find((span) => parentId(span) === spanId(summarySpan))!.attributes[
          'toolwright.call.id'
        ],
        source: 'internal',
      },
    ]);
    expect(gets.every((span) => traceId(span) === traceId(run))).toBe(true);
  });
});
