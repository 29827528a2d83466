/**
 * A handler's `confirm` and `elicit` through the in-process invoker's `ask`: answers, validation
 * of accepted content, callers that cannot ask, undeclared questions, nesting, cancellation, and
 * the elicitation schemas refused at composition.
 */
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ToolError,
  ToolsConfigurationError,
  createToolInvoker,
  defineRuntimeTool,
  type ToolAsk,
  type ToolInvoker,
  type ToolQuestion,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { deferred } from '../fixtures/timing.js';

const Priority = z.object({
  priority: z.enum(['low', 'normal', 'high']).describe('How urgent'),
  note: z.string().max(40).optional(),
  notify: z.boolean().default(true),
});

const identity = (action: string) => ({ serviceName: 'tickets', action, method: 'POST' }) as const;

const close = defineRuntimeTool({
  description: 'Close a ticket after the user confirms',
  identity: identity('close'),
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) =>
    (await confirm(`Close ticket ${input.id}?`)) ? { closed: input.id } : { closed: null },
});

const create = defineRuntimeTool({
  description: 'Create a ticket, asking for its priority',
  identity: identity('create'),
  input: z.object({ title: z.string() }),
  asks: { elicit: [Priority] },
  handler: async ({ input, elicit }) => {
    const answer = await elicit({ message: `Priority of "${input.title}"?`, schema: Priority });
    return answer.action === 'accept'
      ? { title: input.title, ...answer.content }
      : { title: input.title, answered: answer.action };
  },
});

const sneaky = defineRuntimeTool({
  description: 'Asks without declaring it',
  identity: identity('sneaky'),
  input: z.object({}),
  handler: async ({ confirm }) => confirm('Really?'),
});

const batch = defineRuntimeTool({
  description: 'Close two tickets through the close tool',
  identity: identity('batch'),
  input: z.object({}),
  handler: async () => ({
    first: await invoker.invokeOrThrow('tickets_close', { id: 'T-1' }, { transport: 'AGENT' }),
    second: await invoker.invokeOrThrow('tickets_close', { id: 'T-2' }, { transport: 'AGENT' }),
  }),
});

const lines: unknown[][] = [];
const invoker: ToolInvoker = createToolInvoker([close, create, sneaky, batch], {
  logger: { error: (...args: unknown[]) => void lines.push(args), warn: () => undefined },
});

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

describe('confirm', () => {
  it.each([
    ['accept', { closed: 'T-9' }],
    ['decline', { closed: null }],
    ['cancel', { closed: null }],
  ] as const)('%s', async (action, data) => {
    const { ask, questions } = scripted({ action });
    const result = await invoker.invoke(
      'tickets_close',
      { id: 'T-9' },
      { transport: 'AGENT', ask },
    );
    expect(result).toEqual({ ok: true, data });
    expect(questions).toEqual([
      {
        kind: 'confirm',
        message: 'Close ticket T-9?',
        call: expect.objectContaining({ name: 'tickets_close', transport: 'AGENT', depth: 0 }),
      },
    ]);
  });
});

describe('elicit', () => {
  it('accept: the content parsed by the schema (defaults applied), the JSON Schema sent along', async () => {
    const { ask, questions } = scripted({ action: 'accept', content: { priority: 'high' } });
    const result = await invoker.invoke(
      'tickets_create',
      { title: 'Printer' },
      { transport: 'MCP', ask },
    );
    expect(result).toEqual({
      ok: true,
      data: { title: 'Printer', priority: 'high', notify: true },
    });
    const [question] = questions;
    expect(question).toMatchObject({ kind: 'elicit', message: 'Priority of "Printer"?' });
    expect(question.kind === 'elicit' && question.schema).toBe(Priority);
    expect(question.kind === 'elicit' && question.requestedSchema).toMatchObject({
      type: 'object',
      properties: {
        priority: { type: 'string', enum: ['low', 'normal', 'high'], description: 'How urgent' },
        note: { type: 'string', maxLength: 40 },
        notify: { type: 'boolean', default: true },
      },
      required: ['priority'],
    });
  });

  it.each(['decline', 'cancel'] as const)('%s: no content', async (action) => {
    const { ask } = scripted({ action });
    const result = await invoker.invoke(
      'tickets_create',
      { title: 'X' },
      { transport: 'MCP', ask },
    );
    expect(result).toEqual({ ok: true, data: { title: 'X', answered: action } });
  });

  it('an accepted answer that does not fit the schema fails the call with VALIDATION_ERROR', async () => {
    const { ask } = scripted({ action: 'accept', content: { priority: 'urgent' } });
    const result = await invoker.invoke(
      'tickets_create',
      { title: 'X' },
      { transport: 'MCP', ask },
    );
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        details: { target: 'elicitation', issues: [expect.objectContaining({ path: 'priority' })] },
      },
    });
  });
});

describe('callers that cannot ask', () => {
  it('fail with USER_INPUT_UNAVAILABLE (428) and a hint, the handler stopped at the question', async () => {
    const result = await invoker.invoke('tickets_close', { id: 'T-1' }, { transport: 'AGENT' });
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'USER_INPUT_UNAVAILABLE',
        retryable: false,
        message:
          'Tool "tickets_close" needs an answer from the user, and this caller cannot ask one.',
        hint: expect.stringContaining('ask'),
      }),
    });
    // Answered over HTTP (a REST route's ToolErrorFilter) as 428 Precondition Required.
    expect(new ToolError('USER_INPUT_UNAVAILABLE').status).toBe(428);
  });

  it('an ask that throws a ToolError fails the call with it', async () => {
    const ask: ToolAsk = () => {
      throw new ToolError('FORBIDDEN', { message: 'No one to ask' });
    };
    const result = await invoker.invoke(
      'tickets_close',
      { id: 'T-1' },
      { transport: 'AGENT', ask },
    );
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN', message: 'No one to ask' },
    });
  });

  it('an answer of the wrong shape is a bug of the caller: INTERNAL_SERVER_ERROR, logged', async () => {
    lines.length = 0;
    const ask = (() => ({ action: 'yes' })) as unknown as ToolAsk;
    const result = await invoker.invoke(
      'tickets_close',
      { id: 'T-1' },
      { transport: 'AGENT', ask },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(String(lines[0]?.[1])).toContain("must be { action: 'accept' | 'decline' | 'cancel' }");
  });
});

describe('undeclared questions', () => {
  it('a handler that asks without declaring it fails with INTERNAL_SERVER_ERROR, logged with the fix', async () => {
    lines.length = 0;
    const { ask, questions } = scripted({ action: 'accept' });
    const result = await invoker.invoke('tickets_sneaky', {}, { transport: 'AGENT', ask });
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(questions).toEqual([]);
    expect(String(lines[0]?.[1])).toContain(CORE_MESSAGES.confirmUndeclared('tickets_sneaky'));
  });

  it('elicit with a schema the tool does not list fails the same way', async () => {
    const other = defineRuntimeTool({
      description: 'Elicits with another schema',
      identity: identity('other'),
      input: z.object({}),
      asks: { elicit: [Priority] },
      handler: async ({ elicit }) => elicit({ message: 'x', schema: z.object({ a: z.string() }) }),
    });
    const local = createToolInvoker([other], { logger: { error: () => undefined } });
    const result = await local.invoke(
      'tickets_other',
      {},
      { transport: 'AGENT', ask: () => ({ action: 'accept' }) },
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
  });
});

describe('nesting and cancellation', () => {
  it('a nested call asks through its parent caller', async () => {
    const { ask, questions } = scripted({ action: 'accept' }, { action: 'decline' });
    const result = await invoker.invoke('tickets_batch', {}, { transport: 'AGENT', ask });
    expect(result).toEqual({
      ok: true,
      data: { first: { closed: 'T-1' }, second: { closed: null } },
    });
    expect(questions.map((question) => [question.message, question.call.depth])).toEqual([
      ['Close ticket T-1?', 1],
      ['Close ticket T-2?', 1],
    ]);
  });

  it('a caller that gives up while the question is open: the call answers REQUEST_ABORTED at once and the ask sees the abort', async () => {
    const asked = deferred<AbortSignal>();
    const ask: ToolAsk = (_question, { signal }) => {
      asked.resolve(signal);
      return new Promise(() => undefined); // the user never answers
    };
    const controller = new AbortController();
    const pending = invoker.invoke(
      'tickets_close',
      { id: 'T-1' },
      { transport: 'AGENT', ask, signal: controller.signal },
    );
    const signal = await asked.promise;
    expect(signal.aborted).toBe(false);
    controller.abort();
    await expect(pending).resolves.toMatchObject({ ok: false, error: { code: 'REQUEST_ABORTED' } });
    expect(signal.aborted).toBe(true);
  });
});

describe('declaring what a tool asks', () => {
  it('the manifest lists it, with the JSON Schemas of the elicitations', () => {
    expect(invoker.find('tickets_close', 'AGENT')?.asks).toEqual({ confirm: true, elicit: [] });
    expect(invoker.find('tickets_create', 'AGENT')?.asks).toEqual({
      confirm: false,
      elicit: [expect.objectContaining({ type: 'object', required: ['priority'] })],
    });
    expect(invoker.find('tickets_sneaky', 'AGENT')?.asks).toBeUndefined();
  });

  it.each([
    [
      'a nested object',
      z.object({ address: z.object({ city: z.string() }) }),
      'address',
      'is a nested object',
    ],
    [
      'an array of numbers',
      z.object({ scores: z.array(z.number()) }),
      'scores',
      'is an array of something other than enum values',
    ],
    [
      'a union',
      z.object({ id: z.union([z.string(), z.number()]) }),
      'id',
      'is not a string, number, integer, boolean or enum (["string","number"])',
    ],
    ['a string format MCP lacks', z.object({ id: z.uuid() }), 'id', 'has format "uuid"'],
  ])('refuses %s at composition, naming the tool', (_label, schema, key, problem) => {
    const define = () =>
      defineRuntimeTool({
        description: 'Asks for too much',
        identity: identity('greedy'),
        input: z.object({}),
        asks: { elicit: [schema] },
        handler: () => null,
      });
    expect(define).toThrow(ToolsConfigurationError);
    expect(define).toThrow(
      CORE_MESSAGES.elicitationField(
        'Tool "tickets_greedy" (runtime tool tickets.greedy)',
        key,
        problem,
      ),
    );
  });

  it('accepts the whole subset: formats, integers, titled and multi-select enums, defaults', () => {
    const schema = z.object({
      email: z.email(),
      site: z.url().optional(),
      day: z.iso.date(),
      at: z.iso.datetime(),
      seats: z.int().min(1).default(1),
      ratio: z.number(),
      ok: z.boolean(),
      size: z.enum(['s', 'm']).default('s'),
      tags: z.array(z.enum(['a', 'b'])).default([]),
    });
    expect(() =>
      defineRuntimeTool({
        description: 'Asks for everything MCP allows',
        identity: identity('full'),
        input: z.object({}),
        asks: { confirm: true, elicit: [schema] },
        handler: () => null,
      }),
    ).not.toThrow();
  });

  const bad = 'Tool "tickets_bad" (runtime tool tickets.bad)';
  it.each([
    ['not an object', 'yes', CORE_MESSAGES.asks(bad)],
    ['a confirm that is not a boolean', { confirm: 'yes' }, CORE_MESSAGES.asksConfirm(bad)],
    ['an elicit that is not a list', { elicit: Priority }, CORE_MESSAGES.asksElicit(bad)],
    [
      'a schema that is not an object',
      { elicit: [z.string()] },
      CORE_MESSAGES.elicitationNotObject(bad),
    ],
  ])('refuses asks that is %s', (_label, asks, message) => {
    expect(() =>
      defineRuntimeTool({
        description: 'Bad asks',
        identity: identity('bad'),
        input: z.object({}),
        asks: asks as never,
        handler: () => null,
      }),
    ).toThrow(message);
  });
});

describe('the requested schema: the elicitation schema in the shape MCP sends it', () => {
  const Everything = z.object({
    titled: z
      .union([z.literal('a').meta({ title: 'Alpha' }), z.literal('b').meta({ title: 'Beta' })])
      .default('a'),
    legacy: z.enum(['x', 'y']).meta({ enumNames: ['Ex', 'Why'] }),
    multi: z
      .array(z.enum(['p', 'q']))
      .min(1)
      .default(['p']),
    multiTitled: z.array(
      z.union([z.literal('m').meta({ title: 'Em' }), z.literal('n').meta({ title: 'En' })]),
    ),
    count: z.int().min(1).default(2),
    email: z.email().default('a@b.example'),
    code: z.string().regex(/^A/).describe('Starts with A'),
    ok: z.boolean().meta({ title: 'OK?' }).default(false),
  });
  const tool = defineRuntimeTool({
    description: 'Asks for every kind of field',
    identity: identity('everything'),
    input: z.object({}),
    asks: { elicit: [Everything] },
    handler: async ({ elicit }) => elicit({ message: 'All of it', schema: Everything }),
  });

  it('titled enums as oneOf / items.anyOf, no $schema, no pattern, no safe-integer bounds', () => {
    const local = createToolInvoker([tool]);
    expect(local.find('tickets_everything', 'AGENT')?.asks?.elicit).toEqual([
      {
        type: 'object',
        properties: {
          titled: {
            type: 'string',
            default: 'a',
            oneOf: [
              { const: 'a', title: 'Alpha' },
              { const: 'b', title: 'Beta' },
            ],
          },
          legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
          multi: {
            type: 'array',
            default: ['p'],
            minItems: 1,
            items: { type: 'string', enum: ['p', 'q'] },
          },
          multiTitled: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'm', title: 'Em' },
                { const: 'n', title: 'En' },
              ],
            },
          },
          count: { type: 'integer', default: 2, minimum: 1 },
          email: { type: 'string', default: 'a@b.example', format: 'email' },
          code: { type: 'string', description: 'Starts with A' },
          ok: { type: 'boolean', title: 'OK?', default: false },
        },
        required: ['legacy', 'multiTitled', 'code'],
      },
    ]);
  });

  it('the Zod schema still checks the answer (the pattern the client was not sent)', async () => {
    const local = createToolInvoker([tool], { logger: { error: () => undefined } });
    const answer = (code: string) => ({
      action: 'accept' as const,
      content: { legacy: 'x', multiTitled: ['m'], code },
    });
    await expect(
      local.invoke('tickets_everything', {}, { transport: 'AGENT', ask: () => answer('Abc') }),
    ).resolves.toMatchObject({
      ok: true,
      data: { action: 'accept', content: { titled: 'a', code: 'Abc' } },
    });
    await expect(
      local.invoke('tickets_everything', {}, { transport: 'AGENT', ask: () => answer('xyz') }),
    ).resolves.toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('is what the MCP SDK accepts as the params of a form elicitation', async () => {
    const { isSpecType } = await import('@modelcontextprotocol/server');
    const local = createToolInvoker([tool]);
    const [requestedSchema] = local.find('tickets_everything', 'AGENT')!.asks!.elicit;
    expect(
      (isSpecType as Record<string, (value: unknown) => boolean>).ElicitRequestFormParams({
        mode: 'form',
        message: 'All of it',
        requestedSchema,
      }),
    ).toBe(true);
  });
});
