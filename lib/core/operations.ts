import { z } from 'zod';
import { ToolsConfigurationError } from './errors.js';
import type { ToolDescriptor } from './manifest.js';
import {
  assertListingMetadata,
  assertToolSpec,
  toolSpec,
  type ToolCall,
  type ToolHandlerResult,
  type ToolInputSchema,
  type ToolSpec,
} from './runtime-tool.js';
import { deepFreeze, isObjectSchema, toJsonSchema } from './schema.js';
import { UriTemplate } from './uri-template.js';
import type { ToolContext, ToolTransport } from './types.js';

/** An icon a client may show for a tool, resource or prompt (MCP `Icon`). */
export interface OperationIcon {
  readonly src: string;
  readonly mimeType?: string;
  readonly sizes?: readonly string[];
  readonly theme?: 'light' | 'dark';
}

/**
 * Suggests values for one template variable or prompt argument, from what the user typed so far
 * (`value`) and the other arguments already given. At most 100 are sent.
 *
 * @example
 * complete: { slug: (value) => articles.slugs().filter((slug) => slug.startsWith(value)) }
 */
export type Completer = (
  value: string,
  options: { readonly context: ToolContext; readonly arguments: Readonly<Record<string, string>> },
) => readonly string[] | Promise<readonly string[]>;

/** What a resource or prompt declares beyond a tool's spec (`ToolSpec.operation`). */
export type OperationSpec =
  | {
      readonly kind: 'resource';
      /** A resource's URI, or a resource template's RFC 6570 template. */
      readonly uri?: string;
      readonly uriTemplate?: UriTemplate;
      readonly title?: string;
      readonly mimeType?: string;
      readonly icons?: readonly OperationIcon[];
      readonly _meta?: Readonly<Record<string, unknown>>;
      readonly complete?: Readonly<Record<string, Completer | string>>;
    }
  | {
      readonly kind: 'prompt';
      readonly title?: string;
      readonly icons?: readonly OperationIcon[];
      readonly _meta?: Readonly<Record<string, unknown>>;
      readonly complete?: Readonly<Record<string, Completer | string>>;
    };

/** One content of a resource read, as MCP sends it: text, or base64 bytes. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

/** What a resource read resolves to: its contents. */
export interface ResourceRead {
  contents: ResourceContents[];
}

/**
 * What a resource's `read` may return: text, bytes, a content (`{ text }` or `{ blob }`, with a
 * `mimeType` and another `uri` at will), or a list of them.
 */
export type ResourceBody = ResourceItem | readonly ResourceItem[];
type ResourceItem =
  | string
  | Uint8Array
  | { uri?: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: Uint8Array | string; _meta?: Record<string, unknown> };

/** One message of a prompt, as MCP sends it. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: { type: string; [key: string]: unknown };
}

/** What a prompt get resolves to. */
export interface PromptGet {
  description?: string;
  messages: PromptMessage[];
}

/** What a prompt's `get` may return: one user text, the messages, or both with a description. */
export type PromptBody = string | readonly PromptMessage[] | PromptGet;

/** A resource's or template's handler argument: a tool call whose `input` is the URI's variables. */
export type ResourceCall<Variables = Record<string, never>, Context = ToolContext> = ToolCall<
  Variables,
  Context
> & {
  /** The URI read. */
  readonly uri: string;
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CONTENT_KEYS: ReadonlySet<string> = new Set(['uri', 'mimeType', 'text', 'blob', '_meta']);

/** Why one item of a read's body is not a content, or `undefined` when it is one. */
function itemProblem(item: unknown): string | undefined {
  if (typeof item === 'string' || item instanceof Uint8Array) return undefined;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return 'is not text, bytes or { text | blob }';
  }
  const content = item as Record<string, unknown>;
  for (const key of Object.keys(content)) {
    if (!CONTENT_KEYS.has(key)) return `has the unknown key "${key}"`;
  }
  const { uri, mimeType, text, blob, _meta } = content;
  if (uri !== undefined && typeof uri !== 'string') return 'has a uri that is not a string';
  if (mimeType !== undefined && typeof mimeType !== 'string') {
    return 'has a mimeType that is not a string';
  }
  if (
    _meta !== undefined &&
    (typeof _meta !== 'object' || _meta === null || Array.isArray(_meta))
  ) {
    return 'has a _meta that is not an object';
  }
  if ((text === undefined) === (blob === undefined)) return 'needs text or blob, one of them';
  if (text !== undefined && typeof text !== 'string') return 'has a text that is not a string';
  if (
    blob !== undefined &&
    !(blob instanceof Uint8Array || (typeof blob === 'string' && BASE64.test(blob)))
  ) {
    return 'has a blob that is neither bytes nor base64';
  }
  return undefined;
}

/**
 * One content as MCP sends it, `uri` first: the item's own, else left for the read to fill in
 * (each read adds the URI it read).
 */
function toContent(item: unknown, mimeType: string | undefined): Record<string, unknown> {
  if (typeof item === 'string') {
    return mimeType === undefined
      ? { uri: undefined, text: item }
      : { uri: undefined, mimeType, text: item };
  }
  if (item instanceof Uint8Array) {
    return mimeType === undefined
      ? { uri: undefined, blob: base64(item) }
      : { uri: undefined, mimeType, blob: base64(item) };
  }
  const { uri, mimeType: own, text, blob, _meta } = item as Record<string, unknown>;
  const type = own ?? mimeType;
  const content: Record<string, unknown> = { uri };
  if (type !== undefined) content.mimeType = type;
  if (text !== undefined) content.text = text;
  else content.blob = blob instanceof Uint8Array ? base64(blob) : blob;
  if (_meta !== undefined) content._meta = _meta;
  return content;
}

/**
 * Checks a read's body and makes it MCP contents (without the URI, which each call adds): text,
 * bytes, `{ text | blob, mimeType?, uri?, _meta? }`, or a non-empty list of them. Checked by
 * hand rather than by a union of schemas: a read is as frequent as a call.
 */
function resourceOutput(mimeType: string | undefined) {
  return z
    .unknown()
    .check((check) => {
      const body = check.value;
      const items = Array.isArray(body) ? body : [body];
      const problem =
        items.length === 0
          ? 'is an empty list'
          : items.map((item, index) => [itemProblem(item), index] as const).find(([why]) => why);
      if (problem === undefined) return;
      const [why, index] = typeof problem === 'string' ? [problem, undefined] : problem;
      check.issues.push({
        code: 'custom',
        message: `A resource read's body ${Array.isArray(body) && index !== undefined ? `item ${index} ` : ''}${why}.`,
        input: body,
        path: index !== undefined && Array.isArray(body) ? [index] : [],
      });
    })
    .transform((body) =>
      (Array.isArray(body) ? body : [body]).map((item) => toContent(item, mimeType)),
    );
}

function base64(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
}

const promptMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.looseObject({ type: z.string() }),
});

/** Checks a prompt's body and makes it an MCP `GetPromptResult`. */
const promptOutput = z
  .union([
    z.string(),
    z.array(promptMessage),
    z.object({ description: z.string().optional(), messages: z.array(promptMessage) }),
  ])
  .transform((body): PromptGet => {
    if (typeof body === 'string') {
      return { messages: [{ role: 'user', content: { type: 'text', text: body } }] };
    }
    return Array.isArray(body) ? { messages: body } : body;
  });

/** What resources, templates and prompts declare in common. */
interface OperationConfig<C extends z.ZodType | undefined> {
  /** The name the registry, the command line and MCP lists know it by (`^[a-zA-Z0-9_-]{1,64}$`). */
  name: string;
  title?: string;
  description?: string;
  /** The service it belongs to, for hooks, events and audit. @default 'resources' or 'prompts' */
  serviceName?: string;
  /** A schema for the call's context, parsed once per read by the runner. */
  context?: C;
  /** @default ['MCP', 'AGENT']; the command line is opt-in. */
  transports?: readonly ToolTransport[];
  /** OAuth scopes the caller's principal must hold. */
  scopes?: readonly string[];
  /** The runner stops waiting after this long (`REQUEST_TIMEOUT`). */
  timeoutMs?: number;
  icons?: readonly OperationIcon[];
  /** Free metadata MCP lists carry (`_meta`), e.g. an MCP Apps UI resource's. */
  _meta?: Record<string, unknown>;
}

type ContextValue<C> = C extends z.ZodType ? z.output<C> : ToolContext;

/** The options of {@link defineResource}. */
export interface ResourceConfig<
  C extends z.ZodType | undefined = undefined,
> extends OperationConfig<C> {
  /** The resource's URI. */
  uri: string;
  mimeType?: string;
  read: (
    call: ResourceCall<Record<string, never>, ContextValue<C>>,
  ) => ToolHandlerResult<ResourceBody>;
}

/** The options of {@link defineResourceTemplate}. */
export interface ResourceTemplateConfig<
  V extends ToolInputSchema,
  C extends z.ZodType | undefined = undefined,
> extends OperationConfig<C> {
  /** An RFC 6570 URI template, e.g. `kb://articles/{slug}`. */
  uriTemplate: string;
  /** The template's variables, parsed from the URI: one key per variable of the template. */
  variables: V;
  mimeType?: string;
  /** Suggestions for the variables (MCP `completion/complete`). */
  complete?: { [K in keyof z.output<V>]?: Completer };
  read: (call: ResourceCall<z.output<V>, ContextValue<C>>) => ToolHandlerResult<ResourceBody>;
}

/** The options of {@link definePrompt}. */
export interface PromptConfig<
  A extends ToolInputSchema,
  C extends z.ZodType | undefined = undefined,
> extends OperationConfig<C> {
  /** The prompt's arguments: a Zod object of string fields (MCP prompt arguments are strings). */
  args: A;
  /** Suggestions for the arguments (MCP `completion/complete`). */
  complete?: { [K in keyof z.output<A>]?: Completer };
  get: (call: ToolCall<z.output<A>, ContextValue<C>>) => ToolHandlerResult<PromptBody>;
}

/** A resource, resource template or prompt: a runtime tool spec that MCP lists apart. */
export type RuntimeOperation = ToolSpec & {
  readonly kind: 'runtime';
  readonly operation: OperationSpec;
  readonly handler: (call: ToolCall<any, any>) => unknown;
};

const NO_VARIABLES = z.object({});

/**
 * What a resource, template or prompt declares, as a tool method declares it (`@Resource`,
 * `@Prompt` and the `define*` functions share it): a read-only operation named by its `name`,
 * whose input is the URI's variables or the prompt's arguments and whose output check turns
 * the handler's return into what MCP sends.
 */
export interface OperationDeclaration {
  readonly name: string;
  readonly action: string;
  readonly method: 'GET';
  readonly description: string;
  readonly input: ToolInputSchema;
  readonly output: z.ZodType;
  readonly transports?: readonly ToolTransport[];
  readonly timeoutMs?: number;
  readonly scopes?: readonly string[];
  readonly operation: OperationSpec;
}

function declaration(
  config: OperationConfig<any>,
  input: ToolInputSchema,
  output: z.ZodType,
  operation: OperationSpec,
): OperationDeclaration {
  assertListingMetadata(config, `The ${operation.kind} "${String(config.name)}"`);
  if (typeof config.name !== 'string') {
    throw new ToolsConfigurationError(
      `A ${operation.kind} needs a \`name\` (^[a-zA-Z0-9_-]{1,64}$), got ${JSON.stringify(config.name)}.`,
    );
  }
  return {
    name: config.name,
    action: config.name,
    method: 'GET',
    description: config.description ?? config.title ?? config.name,
    input,
    output,
    ...(config.transports !== undefined && { transports: config.transports }),
    ...(config.timeoutMs !== undefined && { timeoutMs: config.timeoutMs }),
    ...(config.scopes !== undefined && { scopes: config.scopes }),
    operation: freezeOperation(operation),
  };
}

/** A runtime resource, template or prompt: the declaration with its handler. */
function runtimeOperation(
  config: OperationConfig<any>,
  declared: OperationDeclaration,
  handler: unknown,
): RuntimeOperation {
  const label = declared.operation.kind;
  const origin = `runtime ${label} "${String(config?.name)}"`;
  if (typeof handler !== 'function') {
    throw new ToolsConfigurationError(
      `The ${label} "${String(config?.name)}" needs a ${label === 'prompt' ? 'get' : 'read'} function.`,
    );
  }
  const { action, method, ...rest } = declared;
  const spec = toolSpec(
    {
      ...rest,
      identity: { serviceName: config.serviceName ?? `${label}s`, action, method },
      context: config.context,
    },
    origin,
  );
  const definition = Object.freeze({ ...spec, kind: 'runtime', handler }) as RuntimeOperation;
  assertToolSpec(definition);
  return definition;
}

function freezeOperation(operation: OperationSpec): OperationSpec {
  const { uriTemplate, complete, ...rest } = operation as OperationSpec & {
    uriTemplate?: UriTemplate;
  };
  return Object.freeze({
    ...(deepFreeze(rest) as object),
    ...(uriTemplate && { uriTemplate }),
    ...(complete && { complete: Object.freeze({ ...complete }) }),
  }) as OperationSpec;
}

function common(config: OperationConfig<any>) {
  return {
    ...(config.title !== undefined && { title: config.title }),
    ...(config.icons !== undefined && { icons: config.icons }),
    ...(config._meta !== undefined && { _meta: config._meta }),
  };
}

/**
 * Declares a resource in code: data at a fixed URI that clients read (`resources/read`), run
 * through the same pipeline as a tool (context, guards, hooks, events, timeout). `read` returns
 * text, bytes, `{ text | blob, mimeType? }` or a list of them.
 *
 * @example
 * export const handbook = defineResource({
 *   uri: 'kb://handbook', name: 'handbook', title: 'Support handbook', mimeType: 'text/markdown',
 *   read: () => readFile('handbook.md', 'utf8'),
 * });
 */
export function defineResource<C extends z.ZodType | undefined = undefined>(
  config: ResourceConfig<C>,
): RuntimeOperation {
  return runtimeOperation(config, resourceDeclaration(config), config.read);
}

/** The declaration of a resource (see {@link defineResource}), checked. */
export function resourceDeclaration(
  config: Omit<ResourceConfig<any>, 'read'>,
): OperationDeclaration {
  if (typeof config?.uri !== 'string' || config.uri === '' || UriTemplate.isTemplate(config.uri)) {
    throw new ToolsConfigurationError(
      `The resource "${String(config?.name)}" needs a plain \`uri\`; for a URI with variables use a resource template.`,
    );
  }
  return declaration(config, NO_VARIABLES, resourceOutput(config.mimeType), {
    kind: 'resource',
    uri: config.uri,
    ...(config.mimeType !== undefined && { mimeType: config.mimeType }),
    ...common(config),
  });
}

/**
 * Declares a resource template: resources whose URIs match an RFC 6570 template, the variables
 * parsed by a Zod object before `read` runs (a URI whose variables do not parse is a
 * `VALIDATION_ERROR`). `complete` suggests variable values to clients.
 *
 * @example
 * export const article = defineResourceTemplate({
 *   uriTemplate: 'kb://articles/{slug}', name: 'kb-article', mimeType: 'text/markdown',
 *   variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
 *   complete: { slug: (value) => articles.slugs().filter((slug) => slug.startsWith(value)) },
 *   read: ({ input }) => articles.body(input.slug),
 * });
 */
export function defineResourceTemplate<
  V extends ToolInputSchema,
  C extends z.ZodType | undefined = undefined,
>(config: ResourceTemplateConfig<V, C>): RuntimeOperation {
  return runtimeOperation(
    config,
    resourceTemplateDeclaration(config as Parameters<typeof resourceTemplateDeclaration>[0]),
    config.read,
  );
}

/** The declaration of a resource template (see {@link defineResourceTemplate}), checked. */
export function resourceTemplateDeclaration(
  config: Omit<ResourceTemplateConfig<ToolInputSchema, any>, 'read' | 'complete'> & {
    complete?: Record<string, Completer | string>;
  },
  methods = false,
): OperationDeclaration {
  const owner = `The resource template "${String(config?.name)}"`;
  if (typeof config?.uriTemplate !== 'string' || !UriTemplate.isTemplate(config.uriTemplate)) {
    throw new ToolsConfigurationError(
      `${owner} needs a \`uriTemplate\` with at least one {variable}; for a fixed URI use a resource.`,
    );
  }
  const template = new UriTemplate(config.uriTemplate);
  if (!isObjectSchema(config.variables)) {
    throw new ToolsConfigurationError(
      `${owner} needs \`variables\`: a Zod object, one key per variable.`,
    );
  }
  const keys = Object.keys(config.variables.shape).sort();
  const named = [...new Set(template.variables)].sort();
  if (keys.join(',') !== named.join(',')) {
    throw new ToolsConfigurationError(
      `${owner}: its variables schema has the keys ${keys.join(', ') || '(none)'}, but ` +
        `"${config.uriTemplate}" names ${named.join(', ')}. Give the schema one key per variable.`,
    );
  }
  assertCompletions(config.complete, keys, owner, methods);
  return declaration(config, config.variables, resourceOutput(config.mimeType), {
    kind: 'resource',
    uriTemplate: template,
    ...(config.mimeType !== undefined && { mimeType: config.mimeType }),
    ...(config.complete !== undefined && {
      complete: config.complete as Record<string, Completer | string>,
    }),
    ...common(config),
  });
}

/**
 * Declares a prompt: a message template clients offer their users (`prompts/get`), with string
 * arguments parsed by a Zod object, run through the same pipeline as a tool. `get` returns one
 * user text, the messages, or `{ description, messages }`; a message may embed a resource
 * (`{ type: 'resource', resource: { uri, text } }`).
 *
 * @example
 * export const triage = definePrompt({
 *   name: 'triage_ticket', description: 'Triage a ticket',
 *   args: z.object({ id: z.string() }),
 *   get: ({ input }) => `Triage ticket ${input.id}: summarise it and suggest a priority.`,
 * });
 */
export function definePrompt<
  A extends ToolInputSchema,
  C extends z.ZodType | undefined = undefined,
>(config: PromptConfig<A, C>): RuntimeOperation {
  return runtimeOperation(
    config,
    promptDeclaration(config as Parameters<typeof promptDeclaration>[0]),
    config.get,
  );
}

/** The declaration of a prompt (see {@link definePrompt}), checked. */
export function promptDeclaration(
  config: Omit<PromptConfig<ToolInputSchema, any>, 'get' | 'complete'> & {
    complete?: Record<string, Completer | string>;
  },
  methods = false,
): OperationDeclaration {
  const owner = `The prompt "${String(config?.name)}"`;
  if (!isObjectSchema(config?.args)) {
    throw new ToolsConfigurationError(`${owner} needs \`args\`: a Zod object of string fields.`);
  }
  const properties = (toJsonSchema(config.args, 'input', owner) as { properties?: object })
    .properties as Record<string, { type?: unknown }> | undefined;
  for (const [key, field] of Object.entries(properties ?? {})) {
    if (field.type !== 'string') {
      throw new ToolsConfigurationError(
        `${owner}: argument "${key}" is not a string. MCP prompt arguments are strings: use ` +
          'z.string() or z.enum([...]), and parse numbers in `get`.',
      );
    }
  }
  assertCompletions(config.complete, Object.keys(config.args.shape), owner, methods);
  return declaration(config, config.args, promptOutput, {
    kind: 'prompt',
    ...(config.complete !== undefined && {
      complete: config.complete as Record<string, Completer | string>,
    }),
    ...common(config),
  });
}

function assertCompletions(
  complete: unknown,
  keys: readonly string[],
  owner: string,
  methods: boolean,
): void {
  if (complete === undefined) return;
  for (const [key, completer] of Object.entries(complete as object)) {
    if (!keys.includes(key)) {
      throw new ToolsConfigurationError(`${owner} completes "${key}", which it does not declare.`);
    }
    if (typeof completer === 'function' || (methods && typeof completer === 'string')) continue;
    throw new ToolsConfigurationError(
      `${owner}: complete.${key} must be a function${methods ? ' or the name of a method of the class' : ''}.`,
    );
  }
}

/**
 * A resource, resource template or prompt as lists and guards see it: a tool descriptor (name,
 * identity, transports, scopes; `inputSchema` holds the variables or arguments) with what MCP
 * lists of it.
 */
export type OperationDescriptor = ToolDescriptor &
  (
    | {
        readonly kind: 'resource';
        readonly uri?: string;
        readonly uriTemplate?: string;
        readonly title?: string;
        readonly mimeType?: string;
        readonly icons?: readonly OperationIcon[];
        readonly _meta?: Readonly<Record<string, unknown>>;
      }
    | {
        readonly kind: 'prompt';
        readonly title?: string;
        readonly arguments: readonly { name: string; description?: string; required: boolean }[];
        readonly icons?: readonly OperationIcon[];
        readonly _meta?: Readonly<Record<string, unknown>>;
      }
  );

/** The frozen descriptor of a resource, template or prompt. */
export function describeOperation(
  spec: ToolSpec & { operation: OperationSpec },
): OperationDescriptor {
  const owner = `${spec.operation.kind === 'prompt' ? 'Prompt' : 'Resource'} "${spec.name}" (${spec.origin})`;
  const inputSchema = toJsonSchema(spec.input, 'input', owner);
  const { operation } = spec;
  const base = {
    name: spec.name,
    description: spec.description,
    identity: spec.identity,
    transports: spec.transports,
    annotations: spec.annotations,
    inputSchema,
    ...(spec.scopes !== undefined && { scopes: spec.scopes }),
    ...(operation.title !== undefined && { title: operation.title }),
    ...(operation.icons !== undefined && { icons: operation.icons }),
    ...(operation._meta !== undefined && { _meta: operation._meta }),
  };
  if (operation.kind === 'prompt') {
    const { properties = {}, required = [] } = inputSchema as {
      properties?: Record<string, { description?: string }>;
      required?: readonly string[];
    };
    return Object.freeze({
      ...base,
      kind: 'prompt',
      arguments: Object.freeze(
        Object.entries(properties).map(([name, { description }]) =>
          Object.freeze({
            name,
            ...(description !== undefined && { description }),
            required: required.includes(name),
          }),
        ),
      ),
    });
  }
  return Object.freeze({
    ...base,
    kind: 'resource',
    ...(operation.uri !== undefined && { uri: operation.uri }),
    ...(operation.uriTemplate !== undefined && { uriTemplate: operation.uriTemplate.template }),
    ...(operation.mimeType !== undefined && { mimeType: operation.mimeType }),
  });
}

/** Whether a value is a resource, resource template or prompt declared with this module. */
export function isRuntimeOperation(value: unknown): value is RuntimeOperation {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as RuntimeOperation).kind === 'runtime' &&
    typeof (value as RuntimeOperation).operation === 'object'
  );
}
