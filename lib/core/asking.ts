import type { z } from 'zod';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolError, ToolsConfigurationError, validationError } from './errors.js';
import type { ToolLogger } from './hooks.js';
import { deepFreeze, isZodObjectSchema, toJsonSchema, type JsonSchema } from './schema.js';
import type { ToolCallInfo } from './types.js';

/**
 * What a tool may ask the user while it runs, declared with the tool so that every surface and
 * the manifest know it in advance. Each elicitation schema must stay within what MCP elicitation
 * can carry (see {@link assertElicitationSchema}); one that does not is refused at composition.
 */
export interface ToolAsks {
  /** The tool may ask for a yes or no (`confirm`). */
  readonly confirm?: boolean;
  /** The schemas the tool may `elicit` with: flat Zod objects of strings, numbers, booleans and enums. */
  readonly elicit?: readonly z.ZodObject<any, any>[];
}

/** A user's answer to an elicitation, its content typed and validated by the schema asked with. */
export type ElicitationResult<Content = Record<string, unknown>> =
  | { readonly action: 'accept'; readonly content: Content }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * A question a handler asks, as a surface receives it: a confirmation, or an elicitation with the
 * Zod schema and its JSON Schema (`requestedSchema`, what MCP sends).
 */
export type ToolQuestion =
  | { readonly kind: 'confirm'; readonly message: string; readonly call: ToolCallInfo }
  | {
      readonly kind: 'elicit';
      readonly message: string;
      readonly schema: z.ZodObject<any, any>;
      readonly requestedSchema: JsonSchema;
      readonly call: ToolCallInfo;
    };

/** A surface's answer to a {@link ToolQuestion}: `accept` (with the content of an elicitation), `decline` or `cancel`. */
export type ToolAnswer =
  | { readonly action: 'accept'; readonly content?: Record<string, unknown> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * How a caller answers the questions of the calls it makes (`InvokeOptions.ask`): it asks its
 * user and resolves to the answer. `signal` fires when the call is abandoned (cancelled, timed
 * out, shut down): stop asking then.
 *
 * @example
 * await invoker.invoke(
 *   'tickets_close',
 *   { id: 'T-1' },
 *   {
 *     transport: 'AGENT',
 *     ask: async (question) => ({
 *       action: (await prompt(question.message)) ? 'accept' : 'decline',
 *     }),
 *   },
 * );
 */
export type ToolAsk = (
  question: ToolQuestion,
  options: { readonly signal: AbortSignal },
) => ToolAnswer | Promise<ToolAnswer>;

/** The `confirm` and `elicit` a handler receives. */
export interface ToolAsker {
  /**
   * Asks the user a yes-or-no question: `true` when they accept, `false` when they decline or
   * cancel. The tool must declare `asks: { confirm: true }`.
   */
  readonly confirm: (message: string) => Promise<boolean>;
  /**
   * Asks the user for values, in the shape of a schema the tool declares in `asks.elicit`. An
   * accepted answer's content is parsed by that schema (`VALIDATION_ERROR` when it does not fit).
   */
  readonly elicit: <S extends z.ZodObject<any, any>>(request: {
    readonly message: string;
    readonly schema: S;
  }) => Promise<ElicitationResult<z.output<S>>>;
}

/** The developer's way out when an in-process caller cannot ask: {@link inputUnavailable}'s hint. */
export const ASK_CALLBACK_HINT =
  'Pass an `ask` callback to the invoker, or call the tool from a surface that asks its user.';

/** The answer a caller that cannot ask gives: the call fails with `USER_INPUT_UNAVAILABLE`. */
export function inputUnavailable(name: string, hint = ASK_CALLBACK_HINT): ToolError {
  return new ToolError('USER_INPUT_UNAVAILABLE', {
    message: `Tool "${name}" needs an answer from the user, and this caller cannot ask one.`,
    hint,
  });
}

/**
 * The failure an MCP client that cannot answer questions (it declares no elicitation capability)
 * receives: worded for the client, the model and the user behind it. What the developer can do
 * about it goes to the log ({@link clientCannotAnswerLog}).
 */
export function clientCannotAnswer(name: string): ToolError {
  return new ToolError('USER_INPUT_UNAVAILABLE', {
    message:
      `Tool "${name}" needs an answer from the user, and this client cannot ask one: ` +
      'it does not support MCP elicitation.',
    hint: 'Call the tool from an MCP client that supports elicitation, which asks the user.',
  });
}

/** What the log tells the developer when an MCP client could not be asked a tool's question. */
export function clientCannotAnswerLog(name: string): string {
  return (
    `[toolwright] Tool "${name}" asked the user during an MCP call, and the client declares no ` +
    'elicitation capability, so the call failed with USER_INPUT_UNAVAILABLE. Clients that ' +
    'support elicitation are asked; for the others, take the answer as an optional input ' +
    `and ask only when it is missing. In-process callers: ${ASK_CALLBACK_HINT} ` +
    '(Logged once per tool.)'
  );
}

// What each logger has been told, by text, so that a client calling again does not flood it.
const toldOf = new WeakMap<object, Set<string>>();

/**
 * Logs a developer's advice about a caller's failed question once per logger and text: a client
 * that calls again does not flood the log. At `warn` when the logger has it, else at `error`.
 */
export function adviseOnce(logger: Pick<ToolLogger, 'error' | 'warn'>, text: string): void {
  let told = toldOf.get(logger);
  if (!told) toldOf.set(logger, (told = new Set()));
  if (told.has(text)) return;
  told.add(text);
  (logger.warn ?? logger.error).call(logger, text);
}

/**
 * The failure of a question whose caller gives no way to answer it. An MCP client gets the
 * client's words, and the developer's advice is logged once per tool and logger; an in-process
 * caller, who is the developer, gets the advice in the error itself.
 */
function cannotAsk({ call, logger }: AskingCall): ToolError {
  if (call.source !== 'mcp') return inputUnavailable(call.name);
  if (logger) adviseOnce(logger, clientCannotAnswerLog(call.name));
  return clientCannotAnswer(call.name);
}

/**
 * What a surface's `ask` throws when it carries the question in a later turn rather than
 * waiting for it (an MCP `input_required` round, a LangGraph `interrupt()`): the round ends with
 * `INPUT_REQUIRED`, which hooks and events see, and the handler runs again with the answer.
 */
export function inputPending(name: string): ToolError {
  return new ToolError('INPUT_REQUIRED', {
    message: `Tool "${name}" is waiting for the user's answer.`,
  });
}

const STRING_FORMATS: ReadonlySet<string> = new Set(['email', 'uri', 'date', 'date-time']);

// The requested schema of each elicitation schema, made once.
const requestedSchemas = new WeakMap<object, JsonSchema>();

/**
 * Refuses, naming `owner`, an elicitation schema outside what MCP elicitation carries: a flat
 * object whose fields are strings (with an optional `email`, `uri`, `date` or `date-time`
 * format), numbers, integers, booleans, single-select enums of strings (titled with a union of
 * `z.literal(…).meta({ title })`, or not), or multi-select arrays of such enums — each with a
 * title, a description and a default at most. Returns the schema in the shape MCP sends it
 * (`requestedSchema`): zod's JSON Schema with a titled enum as `oneOf`, and what MCP elicitation
 * has no word for left out (a `pattern`, `$schema`, the safe-integer bounds of `z.int()`); the
 * Zod schema still checks the answer. Frozen, made once per schema.
 */
export function assertElicitationSchema(schema: unknown, owner: string): JsonSchema {
  if (!isZodObjectSchema(schema)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.elicitationNotObject(owner));
  }
  const made = requestedSchemas.get(schema);
  if (made) return made;
  const json = toJsonSchema(schema, 'input', owner) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: readonly string[];
  };
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [key, field] of Object.entries(json.properties ?? {})) {
    const problem = fieldProblem(field);
    if (problem) {
      throw new ToolsConfigurationError(CORE_MESSAGES.elicitationField(owner, key, problem));
    }
    properties[key] = wireField(field);
  }
  const requested = deepFreeze({
    type: 'object',
    properties,
    ...(json.required !== undefined &&
      json.required.length > 0 && { required: [...json.required] }),
  });
  requestedSchemas.set(schema, requested);
  return requested;
}

/** The keys MCP elicitation gives each kind of field, beyond `type`. */
const FIELD_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: [
    'title',
    'description',
    'default',
    'minLength',
    'maxLength',
    'format',
    'enum',
    'enumNames',
    'oneOf',
  ],
  number: ['title', 'description', 'default', 'minimum', 'maximum'],
  integer: ['title', 'description', 'default', 'minimum', 'maximum'],
  boolean: ['title', 'description', 'default'],
  array: ['title', 'description', 'default', 'minItems', 'maxItems', 'items'],
};

/** One field in the shape MCP sends it (the field passed {@link fieldProblem}). */
function wireField(field: Record<string, unknown>): Record<string, unknown> {
  const source: Record<string, unknown> = isTitledEnum(field, 'anyOf')
    ? { ...field, type: 'string', oneOf: titledOptions(field.anyOf as object[]), anyOf: undefined }
    : field;
  const type = String(source.type);
  const wire: Record<string, unknown> = { type };
  for (const key of FIELD_KEYS[type] ?? []) {
    const value = source[key];
    if (value === undefined) continue;
    // z.int()'s bounds of the safe integers say nothing to a person.
    if (
      (key === 'minimum' || key === 'maximum') &&
      Math.abs(value as number) === Number.MAX_SAFE_INTEGER
    ) {
      continue;
    }
    wire[key] =
      key === 'items'
        ? isTitledEnum(value as Record<string, unknown>, 'anyOf')
          ? { anyOf: titledOptions((value as { anyOf: object[] }).anyOf) }
          : { type: 'string', enum: (value as { enum: unknown }).enum }
        : value;
  }
  return wire;
}

function titledOptions(options: readonly object[]): Array<{ const: string; title?: string }> {
  return options.map((option) => {
    const { const: value, title } = option as { const: string; title?: unknown };
    return typeof title === 'string' ? { const: value, title } : { const: value };
  });
}

/** What is wrong with one field's JSON Schema for elicitation, or `undefined`. */
function fieldProblem(field: Record<string, unknown>): string | undefined {
  if (isStringEnum(field) || isTitledEnum(field) || isTitledEnum(field, 'anyOf')) return undefined;
  switch (field.type) {
    case 'string':
      return field.format === undefined || STRING_FORMATS.has(String(field.format))
        ? undefined
        : `has format "${String(field.format)}"`;
    case 'number':
    case 'integer':
    case 'boolean':
      return undefined;
    case 'array': {
      const items = (field.items ?? {}) as Record<string, unknown>;
      return isStringEnum(items) || isTitledEnum(items, 'anyOf')
        ? undefined
        : 'is an array of something other than enum values';
    }
    default:
      return field.type === 'object' || field.properties !== undefined
        ? 'is a nested object'
        : `is not a string, number, integer, boolean or enum (${JSON.stringify(field.type ?? field)})`;
  }
}

function isStringEnum(field: Record<string, unknown>): boolean {
  return (
    Array.isArray(field.enum) &&
    field.enum.length > 0 &&
    field.enum.every((value) => typeof value === 'string')
  );
}

function isTitledEnum(field: Record<string, unknown>, key: 'oneOf' | 'anyOf' = 'oneOf'): boolean {
  const options = field[key];
  return (
    Array.isArray(options) &&
    options.length > 0 &&
    options.every(
      (option) =>
        typeof option === 'object' &&
        option !== null &&
        typeof (option as { const?: unknown }).const === 'string',
    )
  );
}

/** The declared `asks` of a tool, checked (see {@link assertElicitationSchema}). */
export function assertToolAsks(asks: unknown, owner: string): void {
  if (typeof asks !== 'object' || asks === null || Array.isArray(asks)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.asks(owner));
  }
  const { confirm, elicit } = asks as ToolAsks;
  if (confirm !== undefined && typeof confirm !== 'boolean') {
    throw new ToolsConfigurationError(CORE_MESSAGES.asksConfirm(owner));
  }
  if (elicit !== undefined && !Array.isArray(elicit)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.asksElicit(owner));
  }
  for (const schema of elicit ?? []) assertElicitationSchema(schema, owner);
}

/** What a handler's `confirm` and `elicit` ask through: the call's tool, caller and signal. */
export interface AskingCall {
  readonly call: ToolCallInfo;
  /** The tool's declared questions. */
  readonly asks?: ToolAsks;
  /** How the caller answers, when it can. */
  readonly ask?: ToolAsk;
  readonly signal: AbortSignal;
  /** The invoker's logger: where the developer learns of an MCP client that cannot answer. */
  readonly logger?: ToolLogger;
}

/** The handler's `confirm`. */
export async function askConfirm(asking: AskingCall, message: string): Promise<boolean> {
  const { call, asks } = asking;
  if (asks?.confirm !== true) {
    throw new ToolsConfigurationError(CORE_MESSAGES.confirmUndeclared(call.name));
  }
  const answer = await ask(asking, { kind: 'confirm', message: String(message), call });
  return answer.action === 'accept';
}

/** The handler's `elicit`. */
export async function askElicit<S extends z.ZodObject<any, any>>(
  asking: AskingCall,
  request: { readonly message: string; readonly schema: S },
): Promise<ElicitationResult<z.output<S>>> {
  const { call, asks } = asking;
  const schema = request?.schema;
  if (!asks?.elicit?.includes(schema)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.elicitUndeclared(call.name));
  }
  const answer = await ask(asking, {
    kind: 'elicit',
    message: String(request.message),
    schema,
    requestedSchema: assertElicitationSchema(schema, `Tool "${call.name}"`),
    call,
  });
  if (answer.action !== 'accept') return { action: answer.action };
  const parsed = await schema.safeParseAsync(answer.content ?? {});
  if (!parsed.success) throw validationError('elicitation', parsed.error);
  return { action: 'accept', content: parsed.data };
}

async function ask(asking: AskingCall, question: ToolQuestion): Promise<ToolAnswer> {
  if (!asking.ask) throw cannotAsk(asking);
  const answer = await asking.ask(question, { signal: asking.signal });
  const action = (answer as { action?: unknown } | null)?.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw new TypeError(
      `The answer to a question of "${asking.call.name}" must be { action: 'accept' | 'decline' | 'cancel' }; got ${JSON.stringify(answer)}.`,
    );
  }
  return answer;
}
