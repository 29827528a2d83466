import { Writable } from 'node:stream';
import type { z } from 'zod';
import {
  inputUnavailable,
  type ToolAnswer,
  type ToolAsk,
  type ToolQuestion,
} from '../core/asking.js';
import type { CliStdin } from './cli-input.js';

/** Where the command line writes its messages and prompts (stderr): a terminal when `isTTY`. */
export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width; prompts wrap at it. */
  readonly columns?: number;
}

/** The terminal the command line asks its questions on: keys from `input`, prompts to `output`. */
export interface CliTerminal {
  readonly input: CliStdin;
  readonly output: CliOutput;
}

/**
 * The terminal to ask on, or `undefined` when there is none: stdin and stderr must both be
 * terminals, and stdin must not have been read to its end (the call's arguments typed on it).
 */
export function cliTerminal(
  input: CliStdin | undefined,
  output: CliOutput,
): CliTerminal | undefined {
  const ended = (input as { readableEnded?: boolean } | undefined)?.readableEnded === true;
  return input?.isTTY === true && output.isTTY === true && !ended ? { input, output } : undefined;
}

type Prompts = typeof import('@inquirer/prompts');
let loading: Promise<Prompts> | undefined;
const loadPrompts = () => (loading ??= import('@inquirer/prompts'));

/** A field of a requested schema, as `assertElicitationSchema` makes it. */
interface RequestedField {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly format?: string;
  readonly enum?: readonly string[];
  readonly enumNames?: readonly string[];
  readonly oneOf?: readonly { const: string; title?: string }[];
  readonly items?: {
    readonly enum?: readonly string[];
    readonly anyOf?: readonly { const: string; title?: string }[];
  };
  readonly minimum?: number;
  readonly maximum?: number;
}

interface Option {
  readonly value: string;
  readonly name: string;
}

function options(field: RequestedField): Option[] | undefined {
  if (field.oneOf)
    return field.oneOf.map(({ const: value, title }) => ({ value, name: title ?? value }));
  if (field.enum) {
    return field.enum.map((value, index) => ({ value, name: field.enumNames?.[index] ?? value }));
  }
  return undefined;
}

function itemOptions(field: RequestedField): Option[] {
  const items = field.items ?? {};
  if (items.anyOf)
    return items.anyOf.map(({ const: value, title }) => ({ value, name: title ?? value }));
  return (items.enum ?? []).map((value) => ({ value, name: value }));
}

const SKIP = Symbol('skip');

const CANCELLED = new Set(['ExitPromptError', 'AbortPromptError', 'CancelPromptError']);

/** A prompt closed by Ctrl-C, Escape or the call's abort. */
function isCancelled(error: unknown): boolean {
  return error instanceof Error && CANCELLED.has(error.name);
}

/**
 * A `ToolAsk` that asks on a terminal with `@inquirer/prompts` (loaded on the first question):
 * prompts on `output`, keys from `input`, one question at a time.
 *
 * - `confirm`: a yes/no prompt with the handler's message, No by default.
 * - `elicit`: the message, then "Answer?" (Yes by default; No declines), then one prompt per
 *   field of the requested schema — text (`input`), number, yes/no (`confirm`), single choice
 *   (`select`) and multiple choice (`checkbox`), with the field's default; each answer is
 *   checked by the field's Zod schema before the next prompt. An optional field left empty (or
 *   "(none)" in a choice) is left out.
 *
 * Ctrl-C, Escape, or the call's signal firing close the open prompt: the answer is `cancel`.
 */
export function terminalAsk(terminal: CliTerminal): ToolAsk {
  let turn: Promise<unknown> = Promise.resolve();
  return (question, { signal }) => {
    const answer = turn.then(() => askOnTerminal(terminal, question, signal));
    turn = answer.catch(() => undefined);
    return answer;
  };
}

async function askOnTerminal(
  terminal: CliTerminal,
  question: ToolQuestion,
  signal: AbortSignal,
): Promise<ToolAnswer> {
  const prompts = await loadPrompts();
  const prompt = promptOn(terminal, signal);
  try {
    if (question.kind === 'confirm') {
      const yes = await prompt((context) =>
        prompts.confirm({ message: question.message, default: false }, context),
      );
      return { action: yes ? 'accept' : 'decline' };
    }
    terminal.output.write(`${question.message}\n`);
    const answering = await prompt((context) =>
      prompts.confirm({ message: 'Answer?', default: true }, context),
    );
    if (!answering) return { action: 'decline' };
    const { properties = {}, required = [] } = question.requestedSchema as {
      properties?: Record<string, RequestedField>;
      required?: readonly string[];
    };
    const shape = question.schema.shape as Record<string, z.ZodType | undefined>;
    const content: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(properties)) {
      const value = await prompt((context) =>
        askField(prompts, key, field, required.includes(key), shape[key], context),
      );
      if (value !== undefined) content[key] = value;
    }
    return { action: 'accept', content };
  } catch (error) {
    if (isCancelled(error)) return { action: 'cancel' };
    throw error;
  }
}

type PromptContext = NonNullable<Parameters<Prompts['confirm']>[1]>;

/**
 * Runs prompts on the terminal: each gets its own output (the prompt ends the stream it writes
 * to, which must not be the caller's stderr) and a signal that fires on the call's abort or on
 * Escape.
 */
function promptOn(terminal: CliTerminal, signal: AbortSignal) {
  return async <T>(show: (context: PromptContext) => Promise<T>): Promise<T> => {
    const escape = new AbortController();
    const onKey = (_text: unknown, key?: { name?: string }) => {
      if (key?.name === 'escape') escape.abort();
    };
    terminal.input.on('keypress', onKey);
    const output = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        terminal.output.write(String(chunk));
        done();
      },
    });
    Object.defineProperty(output, 'columns', { get: () => terminal.output.columns });
    try {
      return await show({
        input: terminal.input,
        output,
        signal: AbortSignal.any([signal, escape.signal]),
      });
    } finally {
      terminal.input.removeListener('keypress', onKey);
    }
  };
}

/** The first problem the field's Zod schema finds with an answer, or `true`. */
async function check(schema: z.ZodType | undefined, value: unknown): Promise<true | string> {
  if (!schema) return true;
  const parsed = await schema.safeParseAsync(value);
  return parsed.success || (parsed.error.issues[0]?.message ?? 'Invalid value');
}

async function askField(
  prompts: Prompts,
  key: string,
  field: RequestedField,
  isRequired: boolean,
  schema: z.ZodType | undefined,
  context: PromptContext,
): Promise<unknown> {
  const label = field.title ?? key;
  const message = field.description ? `${label} (${field.description})` : label;
  const needed = isRequired && field.default === undefined;

  const single = options(field);
  if (single) {
    const choices: Array<{ value: string | typeof SKIP; name: string }> = [...single];
    if (!isRequired && field.default === undefined) choices.push({ value: SKIP, name: '(none)' });
    const value = await prompts.select({ message, choices, default: field.default }, context);
    return value === SKIP ? undefined : value;
  }

  switch (field.type) {
    case 'boolean':
      return prompts.confirm({ message, default: field.default === true }, context);
    case 'number':
    case 'integer':
      return prompts.number(
        {
          message,
          default: typeof field.default === 'number' ? field.default : undefined,
          min: field.minimum,
          max: field.maximum,
          step: field.type === 'integer' ? 1 : 'any',
          required: needed,
          validate: (value) => check(schema, value),
        },
        context,
      );
    case 'array':
      return prompts.checkbox(
        {
          message,
          choices: itemOptions(field).map((option) => ({
            ...option,
            checked: Array.isArray(field.default) && field.default.includes(option.value),
          })),
          validate: (chosen) =>
            check(
              schema,
              chosen.map(({ value }) => value),
            ),
        },
        context,
      );
    default: {
      const text = (value: string) => (value === '' && !isRequired ? undefined : value);
      const value = await prompts.input(
        {
          message: field.format ? `${message} [${field.format}]` : message,
          default: typeof field.default === 'string' ? field.default : undefined,
          required: needed,
          validate: (value) => check(schema, text(value)),
        },
        context,
      );
      return text(value);
    }
  }
}

/**
 * The `ask` of a command-line call: `--yes` accepts every confirmation; any other question goes
 * to the embedding's `ask`, else to the terminal, else is refused with `USER_INPUT_UNAVAILABLE`
 * (`inputUnavailable`). `refused` is the question refused that way, if any: a call that then
 * fails with `USER_INPUT_UNAVAILABLE` failed for want of a terminal.
 */
export function cliAsking(options: {
  readonly yes?: boolean;
  readonly ask?: ToolAsk;
  readonly terminal?: CliTerminal;
}): { readonly ask: ToolAsk; readonly refused: () => ToolQuestion | undefined } {
  const asker = options.ask ?? (options.terminal && terminalAsk(options.terminal));
  let refused: ToolQuestion | undefined;
  return {
    ask: (question, askOptions) => {
      if (question.kind === 'confirm' && options.yes === true) return { action: 'accept' };
      if (asker) return asker(question, askOptions);
      refused ??= question;
      throw inputUnavailable(question.call.name);
    },
    refused: () => refused,
  };
}

/** What the command line prints when a tool asks a question it cannot put to anyone. */
export function unansweredMessage(question: ToolQuestion): string {
  const { name } = question.call;
  const needs = question.kind === 'confirm' ? 'a yes or no' : 'answers';
  const fix =
    question.kind === 'confirm'
      ? 'Run it on a terminal, or pass --yes to accept its confirmations.'
      : 'Run it on a terminal to answer (--yes accepts confirmations only).';
  return (
    `Tool "${name}" asks ${JSON.stringify(question.message)} and needs ${needs}, ` +
    `but stdin and stderr are not both terminals to ask on.\n${fix}\n`
  );
}
