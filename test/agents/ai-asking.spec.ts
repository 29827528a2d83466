/**
 * Tools that ask, through the AI SDK surface: a tool's own `confirm` is the SDK's tool approval
 * (`needsApproval`), every other question goes to the `ask` option of `createAgentTools`.
 */
import { describe, expect, it } from '@jest/globals';
import { generateText, isStepCount, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import { AgentToolError, createAgentTools } from '../../lib/ai/index.js';
import {
  createToolInvoker,
  defineRuntimeTool,
  type ToolAsk,
  type ToolInvoker,
  type ToolQuestion,
} from '../../lib/core/index.js';
import { scriptedModel, toolCall, toolResultsSeen } from '../fixtures/scripted-model.js';

/** An `ask` that answers from a script and records the questions. */
function scripted(...answers: Array<Awaited<ReturnType<ToolAsk>>>) {
  const questions: ToolQuestion[] = [];
  const ask: ToolAsk = (question) => {
    questions.push(question);
    const answer = answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    return answer;
  };
  return { ask, questions };
}

const Priority = z.object({
  priority: z.enum(['low', 'normal', 'high']),
  note: z.string().max(20).optional(),
});

const identity = (action: string) => ({ serviceName: 'tickets', action, method: 'POST' }) as const;

/** The tools, recording what their handlers do in `events`. */
function ticketTools(events: string[]) {
  const invoker: ToolInvoker = createToolInvoker(
    [
      defineRuntimeTool({
        description: 'Close a ticket once the user confirms',
        identity: identity('close'),
        input: z.object({ id: z.string() }),
        asks: { confirm: true },
        handler: async ({ input, confirm }) => {
          events.push(`close ${input.id}: run`);
          const first = await confirm(`Close ticket ${input.id}?`);
          const second = await confirm(`Notify the customer of ${input.id}?`);
          events.push(`close ${input.id}: confirmed ${first}, ${second}`);
          return { closed: first ? input.id : null, notified: second };
        },
      }),
      defineRuntimeTool({
        description: 'Create a ticket, asking for its priority',
        identity: identity('create'),
        input: z.object({ title: z.string() }),
        asks: { elicit: [Priority] },
        handler: async ({ input, elicit }) => {
          const answer = await elicit({
            message: `Priority of "${input.title}"?`,
            schema: Priority,
          });
          if (answer.action !== 'accept') return { title: input.title, answered: answer.action };
          const priority: 'low' | 'normal' | 'high' = answer.content.priority;
          return { title: input.title, priority };
        },
      }),
      defineRuntimeTool({
        description: 'Escalate a ticket once the user confirms, asking for the new priority',
        identity: identity('escalate'),
        input: z.object({ id: z.string() }),
        asks: { confirm: true, elicit: [Priority] },
        handler: async ({ input, confirm, elicit }) => {
          const confirmed = await confirm(`Escalate ${input.id}?`);
          const answer = await elicit({ message: 'New priority?', schema: Priority });
          return {
            confirmed,
            priority: answer.action === 'accept' ? answer.content.priority : null,
          };
        },
      }),
      defineRuntimeTool({
        description: 'Purge a ticket once the user confirms, closing it first',
        identity: identity('purge'),
        input: z.object({ id: z.string() }),
        asks: { confirm: true },
        handler: async ({ input, confirm }) => {
          const confirmed = await confirm(`Purge ${input.id}?`);
          const close = await invoker.invoke('tickets_close', input, { transport: 'AGENT' });
          return { confirmed, close };
        },
      }),
      defineRuntimeTool({
        description: 'Check that the ticket service answers',
        identity: identity('ping'),
        input: z.object({}),
        handler: () => {
          events.push('ping: run');
          return { pong: true };
        },
      }),
    ],
    { logger: { error: () => undefined, warn: () => undefined } },
  );
  return invoker;
}

/**
 * One approval round: the model calls `name`, the first run stops at the approval request,
 * the application answers it, the second run goes on.
 */
async function approvalRound(
  tools: ToolSet,
  name: string,
  input: unknown,
  response: { approved: boolean; reason?: string },
) {
  const model = scriptedModel([toolCall('c1', name, input)], [{ type: 'text', text: 'done' }]);
  const messages: ModelMessage[] = [{ role: 'user', content: `Please ${name}` }];
  const first = await generateText({ model, tools, messages });
  messages.push(...first.responseMessages);
  const requests = first.content.filter((part) => part.type === 'tool-approval-request');
  messages.push({
    role: 'tool',
    content: requests.map(({ approvalId }) => ({
      type: 'tool-approval-response' as const,
      approvalId,
      ...response,
    })),
  });
  return { model, first, requests, run: () => generateText({ model, tools, messages }) };
}

describe('confirm: the AI SDK tool approval', () => {
  it('stops at a tool-approval-request without running the handler; approved, the next run executes it and every confirm of the call resolves true', async () => {
    const events: string[] = [];
    const tools = createAgentTools(ticketTools(events));

    const { model, first, requests, run } = await approvalRound(
      tools,
      'tickets_close',
      { id: 'T-1' },
      { approved: true },
    );

    expect(first.finishReason).toBe('tool-calls');
    expect(requests).toEqual([
      {
        type: 'tool-approval-request',
        approvalId: expect.any(String),
        toolCall: expect.objectContaining({
          toolCallId: 'c1',
          toolName: 'tickets_close',
          input: { id: 'T-1' },
        }),
      },
    ]);
    expect(first.content.some((part) => part.type === 'tool-result')).toBe(false);
    expect(events).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(1);

    const second = await run();

    expect(events).toEqual(['close T-1: run', 'close T-1: confirmed true, true']);
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(toolResultsSeen(model, 1)).toEqual([
      {
        toolCallId: 'c1',
        toolName: 'tickets_close',
        output: { type: 'json', value: { closed: 'T-1', notified: true } },
      },
    ]);
    expect(second.text).toBe('done');
    // What the application keeps of the second run: the tool's result, then the model's answer.
    expect(second.responseMessages.map(({ role }) => role)).toEqual(['tool', 'assistant']);
    expect(second.responseMessages[0].content).toEqual([
      expect.objectContaining({
        type: 'tool-result',
        toolCallId: 'c1',
        output: { type: 'json', value: { closed: 'T-1', notified: true } },
      }),
    ]);
  });

  it('denied: the handler never runs and the model reads an execution-denied result with the reason', async () => {
    const events: string[] = [];
    const tools = createAgentTools(ticketTools(events));

    const { model, requests, run } = await approvalRound(
      tools,
      'tickets_close',
      { id: 'T-1' },
      { approved: false, reason: 'The customer still needs it' },
    );
    expect(requests).toHaveLength(1);
    const second = await run();

    expect(events).toEqual([]);
    expect(toolResultsSeen(model, 1)).toEqual([
      {
        toolCallId: 'c1',
        toolName: 'tickets_close',
        output: { type: 'execution-denied', reason: 'The customer still needs it' },
      },
    ]);
    expect(second.text).toBe('done');
  });

  it("covers the tool's own confirm only: its elicit goes to the ask option, which never sees that confirm", async () => {
    const { ask, questions } = scripted({ action: 'accept', content: { priority: 'high' } });
    const tools = createAgentTools(ticketTools([]), { ask });

    const { model, run } = await approvalRound(
      tools,
      'tickets_escalate',
      { id: 'T-2' },
      { approved: true },
    );
    await run();

    expect(toolResultsSeen(model, 1)).toEqual([
      {
        toolCallId: 'c1',
        toolName: 'tickets_escalate',
        output: { type: 'json', value: { confirmed: true, priority: 'high' } },
      },
    ]);
    expect(questions.map(({ kind, message }) => ({ kind, message }))).toEqual([
      { kind: 'elicit', message: 'New priority?' },
    ]);
  });

  it('does not cover the confirm of a call made inside the approved one: it goes to ask, or fails with USER_INPUT_UNAVAILABLE', async () => {
    const nestedClose = async (ask?: ToolAsk) => {
      const tools = createAgentTools(ticketTools([]), { ask });
      const { model, run } = await approvalRound(
        tools,
        'tickets_purge',
        { id: 'T-3' },
        { approved: true },
      );
      await run();
      const [{ output }] = toolResultsSeen(model, 1);
      return output.type === 'json' ? output.value : output;
    };

    await expect(nestedClose()).resolves.toEqual({
      confirmed: true,
      close: {
        ok: false,
        error: expect.objectContaining({ code: 'USER_INPUT_UNAVAILABLE' }),
      },
    });

    const { ask, questions } = scripted({ action: 'decline' }, { action: 'decline' });
    await expect(nestedClose(ask)).resolves.toEqual({
      confirmed: true,
      close: { ok: true, data: { closed: null, notified: false } },
    });
    expect(questions.map(({ kind, message, call }) => [kind, message, call.depth])).toEqual([
      ['confirm', 'Close ticket T-3?', 1],
      ['confirm', 'Notify the customer of T-3?', 1],
    ]);
  });

  it('an agent run inside a tool call: the approved call is the one the SDK executes, not its parent', async () => {
    const events: string[] = [];
    const inner = createAgentTools(ticketTools(events));
    const outer = createToolInvoker([
      defineRuntimeTool({
        description: 'Runs an agent step',
        identity: identity('agent'),
        input: z.object({}),
        handler: () =>
          inner.tickets_close.execute!(
            { id: 'T-4' },
            { toolCallId: 'c4', messages: [], context: {} },
          ),
      }),
    ]);

    await expect(outer.invoke('tickets_agent', {}, { transport: 'AGENT' })).resolves.toEqual({
      ok: true,
      data: { closed: 'T-4', notified: true },
    });
    expect(events).toEqual(['close T-4: run', 'close T-4: confirmed true, true']);
  });
});

describe('elicit: the ask option', () => {
  async function create(ask: ToolAsk | undefined) {
    const model = scriptedModel(
      [toolCall('e1', 'tickets_create', { title: 'Printer' })],
      [{ type: 'text', text: 'done' }],
    );
    const result = await generateText({
      model,
      tools: createAgentTools(ticketTools([]), { ask }),
      stopWhen: isStepCount(2),
      prompt: 'Open a ticket about the printer',
    });
    // No approval for a tool that only elicits: the call ran in the first step.
    expect(result.content.some((part) => part.type === 'tool-approval-request')).toBe(false);
    const [seen] = toolResultsSeen(model, 1);
    return { seen, result };
  }

  it('accept: the content parsed by the schema reaches the handler, typed', async () => {
    const { ask, questions } = scripted({ action: 'accept', content: { priority: 'high' } });

    const { seen } = await create(ask);

    expect(seen.output).toEqual({
      type: 'json',
      value: { title: 'Printer', priority: 'high' },
    });
    expect(questions).toEqual([
      {
        kind: 'elicit',
        message: 'Priority of "Printer"?',
        schema: Priority,
        requestedSchema: expect.objectContaining({ type: 'object', required: ['priority'] }),
        call: expect.objectContaining({
          name: 'tickets_create',
          transport: 'AGENT',
          source: 'agent',
          depth: 0,
        }),
      },
    ]);
  });

  it.each(['decline', 'cancel'] as const)(
    '%s: the handler gets the action, no content',
    async (action) => {
      const { ask } = scripted({ action });

      const { seen } = await create(ask);

      expect(seen.output).toEqual({ type: 'json', value: { title: 'Printer', answered: action } });
    },
  );

  it('an accepted content that does not fit the schema fails the call with VALIDATION_ERROR', async () => {
    const { ask } = scripted({ action: 'accept', content: { priority: 'urgent' } });

    const { seen } = await create(ask);

    expect(seen.output.type).toBe('error-text');
    expect(JSON.parse((seen.output as { value: string }).value)).toMatchObject({
      error: 'VALIDATION_ERROR',
      retryable: false,
      details: {
        target: 'elicitation',
        issues: [expect.objectContaining({ path: 'priority' })],
      },
    });
  });

  it('without ask, the call fails with USER_INPUT_UNAVAILABLE, which the model reads in the error envelope', async () => {
    const { seen, result } = await create(undefined);

    expect(seen.output).toEqual({
      type: 'error-text',
      value: JSON.stringify({
        error: 'USER_INPUT_UNAVAILABLE',
        message:
          'Tool "tickets_create" needs an answer from the user, and this caller cannot ask one.',
        retryable: false,
        hint: 'Pass an `ask` callback to the invoker, or call the tool from a surface that asks its user.',
      }),
    });
    const failed = result.steps[0].content.find((part) => part.type === 'tool-error');
    expect(failed?.error).toBeInstanceOf(AgentToolError);
    expect((failed?.error as AgentToolError).envelope.error).toBe('USER_INPUT_UNAVAILABLE');
  });
});

describe('tools that do not confirm', () => {
  it('have no needsApproval at all, and run without an approval round', async () => {
    const events: string[] = [];
    const tools = createAgentTools(ticketTools(events));

    expect(tools.tickets_close.needsApproval).toBe(true);
    expect(tools.tickets_escalate.needsApproval).toBe(true);
    expect('needsApproval' in tools.tickets_ping).toBe(false);
    expect('needsApproval' in tools.tickets_create).toBe(false);

    const model = scriptedModel(
      [toolCall('p1', 'tickets_ping', {})],
      [{ type: 'text', text: 'up' }],
    );
    const result = await generateText({ model, tools, prompt: 'Is the service up?' });
    expect(result.content.map((part) => part.type)).toEqual(['tool-call', 'tool-result']);
    expect(events).toEqual(['ping: run']);
  });
});
