/**
 * Tools that ask, run by a real LangGraph graph (a ToolNode in a StateGraph with a MemorySaver):
 * a question interrupts the graph with a toolwright question, `Command({ resume })` answers it and
 * the handler runs again from the start. Outside a graph that can interrupt, the `ask` option
 * answers, and without it the call fails with USER_INPUT_UNAVAILABLE.
 */
import { describe, expect, it } from '@jest/globals';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import {
  Command,
  END,
  INTERRUPT,
  isInterrupted,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  type AfterToolCallEvent,
  type ToolAnswer,
  type ToolCallEvent,
} from '../../lib/index.js';
import {
  createLangChainTools,
  isToolInterrupt,
  type LangChainToolsOptions,
} from '../../lib/langchain/index.js';

const Priority = z.object({
  priority: z.enum(['low', 'normal', 'high']).describe('How urgent'),
  note: z.string().optional(),
});

const identity = (action: string) => ({ serviceName: 'tickets', action, method: 'POST' }) as const;

/** Every run of every handler, with what its questions returned. */
type Run = { tool: string; answers: unknown[] };

function setup(options: LangChainToolsOptions = {}) {
  const runs: Run[] = [];
  const start = (tool: string) => {
    const run: Run = { tool, answers: [] };
    runs.push(run);
    return run;
  };

  const close = defineRuntimeTool({
    description: 'Close a ticket after the user confirms',
    identity: identity('close'),
    input: z.object({ id: z.string() }),
    asks: { confirm: true },
    handler: async ({ input, confirm }) => {
      const run = start('tickets_close');
      const confirmed = await confirm(`Close ticket ${input.id}?`);
      run.answers.push(confirmed);
      return { closed: confirmed ? input.id : null };
    },
  });

  const create = defineRuntimeTool({
    description: 'Create a ticket, asking for its priority',
    identity: identity('create'),
    input: z.object({ title: z.string() }),
    asks: { elicit: [Priority] },
    handler: async ({ input, elicit }) => {
      const run = start('tickets_create');
      const answer = await elicit({ message: `Priority of "${input.title}"?`, schema: Priority });
      run.answers.push(answer);
      return answer.action === 'accept'
        ? { title: input.title, ...answer.content }
        : { title: input.title, answered: answer.action };
    },
  });

  const escalate = defineRuntimeTool({
    description: 'Escalate a ticket: confirm, then ask for the priority',
    identity: identity('escalate'),
    input: z.object({ id: z.string() }),
    asks: { confirm: true, elicit: [Priority] },
    handler: async ({ input, confirm, elicit }) => {
      const run = start('tickets_escalate');
      const confirmed = await confirm(`Escalate ${input.id}?`);
      run.answers.push(confirmed);
      if (!confirmed) return { escalated: false };
      const answer = await elicit({ message: 'New priority?', schema: Priority });
      run.answers.push(answer);
      return { escalated: true, answer };
    },
  });

  const swallow = defineRuntimeTool({
    description: 'Catches the failure of its own question',
    identity: identity('swallow'),
    input: z.object({}),
    asks: { confirm: true },
    handler: async ({ confirm }) => {
      const run = start('tickets_swallow');
      try {
        const confirmed = await confirm('Go on?');
        run.answers.push(confirmed);
        return { confirmed };
      } catch (error) {
        run.answers.push((error as { code?: unknown }).code);
        return { confirmed: 'unknown' };
      }
    },
  });

  const detached = defineRuntimeTool({
    description: "Asks from outside LangChain's async context",
    identity: identity('detached'),
    input: z.object({}),
    asks: { confirm: true },
    handler: async ({ confirm }) => {
      const run = start('tickets_detached');
      const confirmed = await AsyncLocalStorageProviderSingleton.getInstance().run(undefined, () =>
        confirm('Detached?'),
      );
      run.answers.push(confirmed);
      return { confirmed };
    },
  });

  const delegate = defineRuntimeTool({
    description: 'Runs the LangChain tool tickets_close',
    identity: identity('delegate'),
    input: z.object({ id: z.string() }),
    handler: async ({ input }) =>
      JSON.parse(
        (await tools.find(({ name }) => name === 'tickets_close')!.invoke(input)) as string,
      ) as unknown,
  });

  const after: AfterToolCallEvent[] = [];
  const events: ToolCallEvent[] = [];
  const logged: unknown[][] = [];
  const invoker = createToolInvoker([close, create, escalate, swallow, detached, delegate], {
    hooks: { afterToolCall: (options) => void after.push(options) },
    onCallFinished: (event) => void events.push(event),
    logger: {
      error: (...args: unknown[]) => void logged.push(args),
      warn: (...args: unknown[]) => void logged.push(args),
    },
  });
  const tools = createLangChainTools(invoker, options);

  const graph = (checkpointer = true) =>
    new StateGraph(MessagesAnnotation)
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'tools')
      .addEdge('tools', END)
      .compile(checkpointer ? { checkpointer: new MemorySaver() } : {});

  return { invoker, tools, graph, runs, after, events, logged };
}

/** The model's turn: one tool call, as a ToolNode reads it. */
function calling(name: string, args: Record<string, unknown>, id = 'call-1') {
  return { messages: [new AIMessage({ content: '', tool_calls: [{ name, args, id }] })] };
}

/** The ToolMessage a finished run of the graph ends with, its content parsed. */
function lastToolMessage(state: { messages: BaseMessage[] }) {
  const message = state.messages.at(-1);
  expect(message).toBeInstanceOf(ToolMessage);
  const { status, tool_call_id, content } = message as ToolMessage;
  return { status, tool_call_id, content: JSON.parse(content as string) as unknown };
}

/** The interrupts a run of the graph stopped at ([] when it finished). */
const interruptsOf = (state: unknown) => (isInterrupted(state) ? state[INTERRUPT] : []);

const thread = (id: string) => ({ configurable: { thread_id: id } });

describe('in a LangGraph graph with a checkpointer', () => {
  it('confirm interrupts with the question; accept resumes, the handler runs again and sees true', async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('confirm-accept');

    const stopped = await app.invoke(calling('tickets_close', { id: 'T-1' }), config);
    expect(interruptsOf(stopped)).toEqual([
      {
        id: expect.any(String),
        value: {
          type: 'toolwright/question',
          kind: 'confirm',
          tool: 'tickets_close',
          toolCallId: 'call-1',
          message: 'Close ticket T-1?',
        },
      },
    ]);
    expect(isToolInterrupt(interruptsOf(stopped)[0].value)).toBe(true);
    expect(stopped.messages).toHaveLength(1); // no ToolMessage yet
    expect((await app.getState(config)).next).toEqual(['tools']);
    expect(runs).toEqual([{ tool: 'tickets_close', answers: [] }]);

    const done = await app.invoke(new Command({ resume: { action: 'accept' } }), config);
    expect(isInterrupted(done)).toBe(false);
    expect(lastToolMessage(done)).toEqual({
      status: 'success',
      tool_call_id: 'call-1',
      content: { closed: 'T-1' },
    });
    expect(runs).toEqual([
      { tool: 'tickets_close', answers: [] },
      { tool: 'tickets_close', answers: [true] },
    ]);
    expect((await app.getState(config)).next).toEqual([]);
  });

  it.each(['decline', 'cancel'] as const)('confirm, %s: the handler sees false', async (action) => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread(`confirm-${action}`);
    await app.invoke(calling('tickets_close', { id: 'T-2' }), config);

    const done = await app.invoke(new Command({ resume: { action } }), config);
    expect(lastToolMessage(done).content).toEqual({ closed: null });
    expect(runs.map(({ answers }) => answers)).toEqual([[], [false]]);
  });

  it('elicit interrupts with the requested JSON Schema; accepted content is parsed by the Zod schema', async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('elicit-accept');

    const stopped = await app.invoke(calling('tickets_create', { title: 'Printer' }), config);
    const [{ value }] = interruptsOf(stopped);
    expect(value).toEqual({
      type: 'toolwright/question',
      kind: 'elicit',
      tool: 'tickets_create',
      toolCallId: 'call-1',
      message: 'Priority of "Printer"?',
      requestedSchema: {
        type: 'object',
        properties: {
          priority: { type: 'string', enum: ['low', 'normal', 'high'], description: 'How urgent' },
          note: { type: 'string' },
        },
        required: ['priority'],
      },
    });

    const answer: ToolAnswer = {
      action: 'accept',
      content: { priority: 'high', extra: 'dropped' },
    };
    const done = await app.invoke(new Command({ resume: answer }), config);
    expect(lastToolMessage(done)).toEqual({
      status: 'success',
      tool_call_id: 'call-1',
      content: { title: 'Printer', priority: 'high' },
    });
    expect(runs).toEqual([
      { tool: 'tickets_create', answers: [] },
      { tool: 'tickets_create', answers: [{ action: 'accept', content: { priority: 'high' } }] },
    ]);
  });

  it.each(['decline', 'cancel'] as const)('elicit, %s: no content', async (action) => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread(`elicit-${action}`);
    await app.invoke(calling('tickets_create', { title: 'X' }), config);

    const done = await app.invoke(new Command({ resume: { action } }), config);
    expect(lastToolMessage(done).content).toEqual({ title: 'X', answered: action });
    expect(runs.at(-1)!.answers).toEqual([{ action }]);
  });

  it('accepted content that does not fit the schema fails the call with VALIDATION_ERROR', async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('elicit-invalid');
    await app.invoke(calling('tickets_create', { title: 'X' }), config);

    const done = await app.invoke(
      new Command({ resume: { action: 'accept', content: { priority: 'urgent' } } }),
      config,
    );
    const message = lastToolMessage(done);
    expect(message).toMatchObject({
      status: 'error',
      tool_call_id: 'call-1',
      content: { error: 'VALIDATION_ERROR', retryable: false },
    });
    expect(runs.at(-1)!.answers).toEqual([]); // the handler never got the content
  });

  it('two questions in one handler: two interrupts, two resumes, the last run sees both answers', async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('two-questions');

    const first = await app.invoke(calling('tickets_escalate', { id: 'T-3' }), config);
    expect(interruptsOf(first).map(({ value }) => value)).toEqual([
      expect.objectContaining({ kind: 'confirm', message: 'Escalate T-3?' }),
    ]);

    const second = await app.invoke(new Command({ resume: { action: 'accept' } }), config);
    expect(interruptsOf(second).map(({ value }) => value)).toEqual([
      expect.objectContaining({ kind: 'elicit', message: 'New priority?' }),
    ]);
    expect(interruptsOf(second)[0].id).not.toBe(interruptsOf(first)[0].id);

    const done = await app.invoke(
      new Command({ resume: { action: 'accept', content: { priority: 'low', note: 'later' } } }),
      config,
    );
    expect(lastToolMessage(done).content).toEqual({
      escalated: true,
      answer: { action: 'accept', content: { priority: 'low', note: 'later' } },
    });
    expect(runs.map(({ answers }) => answers)).toEqual([
      [],
      [true],
      [true, { action: 'accept', content: { priority: 'low', note: 'later' } }],
    ]);
  });

  it('each round is one call for hooks and events: INPUT_REQUIRED, then the success', async () => {
    const { graph, after, events, logged } = setup();
    const app = graph();
    const config = thread('rounds');

    await app.invoke(calling('tickets_close', { id: 'T-4' }), config);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      name: 'tickets_close',
      context: { toolCallId: 'call-1' },
      result: { ok: false, error: { code: 'INPUT_REQUIRED' } },
    });
    expect(events).toEqual([
      expect.objectContaining({ name: 'tickets_close', ok: false, errorCode: 'INPUT_REQUIRED' }),
    ]);

    await app.invoke(new Command({ resume: { action: 'accept' } }), config);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ result: { ok: true, data: { closed: 'T-4' } } });
    expect(events.map(({ ok }) => ok)).toEqual([false, true]);
    expect(after[1].call.id).not.toBe(after[0].call.id);
    expect(logged).toEqual([]); // nothing was an unexpected failure
  });

  it('a handler that catches the failure of its question still stops the graph', async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('swallow');

    const stopped = await app.invoke(calling('tickets_swallow', {}), config);
    expect(interruptsOf(stopped).map(({ value }) => value)).toEqual([
      expect.objectContaining({ tool: 'tickets_swallow', message: 'Go on?' }),
    ]);
    expect(stopped.messages).toHaveLength(1);
    expect(runs[0].answers).toEqual(['INPUT_REQUIRED']);

    const done = await app.invoke(new Command({ resume: { action: 'decline' } }), config);
    expect(lastToolMessage(done).content).toEqual({ confirmed: false });
  });

  it("a question asked outside LangChain's async context reaches the tool call's task", async () => {
    const { graph, runs } = setup();
    const app = graph();
    const config = thread('detached');

    const stopped = await app.invoke(calling('tickets_detached', {}), config);
    expect(interruptsOf(stopped).map(({ value }) => value)).toEqual([
      expect.objectContaining({ tool: 'tickets_detached', kind: 'confirm' }),
    ]);
    const done = await app.invoke(new Command({ resume: { action: 'accept' } }), config);
    expect(lastToolMessage(done).content).toEqual({ confirmed: true });
    expect(runs.map(({ answers }) => answers)).toEqual([[], [true]]);
  });
});

describe('outside a graph that can interrupt', () => {
  const toolCall = (name: string, args: Record<string, unknown>) =>
    ({ name, args, id: 'lc-1', type: 'tool_call' }) as const;
  const find = (tools: DynamicStructuredTool[], name: string) =>
    tools.find((tool) => tool.name === name)!;

  it('the ask option answers the questions of a tool invoked directly', async () => {
    const questions: unknown[] = [];
    const { tools, runs } = setup({
      ask: (question) => {
        questions.push({ kind: question.kind, message: question.message });
        return question.kind === 'confirm'
          ? { action: 'accept' }
          : { action: 'accept', content: { priority: 'normal' } };
      },
    });

    const message = await find(tools, 'tickets_escalate').invoke(
      toolCall('tickets_escalate', { id: 'T-5' }),
    );
    expect(message).toBeInstanceOf(ToolMessage);
    expect(JSON.parse((message as ToolMessage).content as string)).toEqual({
      escalated: true,
      answer: { action: 'accept', content: { priority: 'normal' } },
    });
    expect(questions).toEqual([
      { kind: 'confirm', message: 'Escalate T-5?' },
      { kind: 'elicit', message: 'New priority?' },
    ]);
    expect(runs).toHaveLength(1);
  });

  it('without ask, a question fails the call with USER_INPUT_UNAVAILABLE, returned to the model', async () => {
    const { tools, after } = setup();

    const message = (await find(tools, 'tickets_close').invoke(
      toolCall('tickets_close', { id: 'T-6' }),
    )) as ToolMessage;
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message.status).toBe('error');
    expect(message.tool_call_id).toBe('lc-1');
    expect(JSON.parse(message.content as string)).toMatchObject({
      error: 'USER_INPUT_UNAVAILABLE',
      retryable: false,
    });
    expect(after[0].result).toMatchObject({
      ok: false,
      error: { code: 'USER_INPUT_UNAVAILABLE' },
    });

    // Invoked with plain arguments, the envelope is the text.
    const text = await find(tools, 'tickets_close').invoke({ id: 'T-6' });
    expect(JSON.parse(text as string)).toMatchObject({
      error: 'USER_INPUT_UNAVAILABLE',
      hint: expect.stringContaining('Pass `ask` to createLangChainTools'),
    });
  });

  it("a tool invoked inside a toolwright call asks through that call's caller", async () => {
    const { invoker, runs } = setup();
    const asked: unknown[] = [];
    const result = await invoker.invoke(
      'tickets_delegate',
      { id: 'T-8' },
      {
        transport: 'AGENT',
        ask: (question) => {
          asked.push([question.call.name, question.message]);
          return { action: 'accept' };
        },
      },
    );
    expect(result).toEqual({ ok: true, data: { closed: 'T-8' } });
    expect(asked).toEqual([['tickets_close', 'Close ticket T-8?']]);
    expect(runs).toEqual([{ tool: 'tickets_close', answers: [true] }]);
  });

  it('in a graph without a checkpointer, ask answers; without it the hint names the checkpointer', async () => {
    const answered = setup({ ask: () => ({ action: 'accept' }) });
    const done = await answered.graph(false).invoke(calling('tickets_close', { id: 'T-7' }));
    expect(isInterrupted(done)).toBe(false);
    expect(lastToolMessage(done).content).toEqual({ closed: 'T-7' });

    const unanswered = setup();
    const failed = await unanswered.graph(false).invoke(calling('tickets_close', { id: 'T-7' }));
    expect(lastToolMessage(failed)).toMatchObject({
      status: 'error',
      content: {
        error: 'USER_INPUT_UNAVAILABLE',
        hint: expect.stringContaining('checkpointer'),
      },
    });
  });
});
