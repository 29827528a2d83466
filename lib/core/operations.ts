import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { CORE_MESSAGES } from './core.messages.js';
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
import {
  deepFreeze,
  isObjectSchema,
  jsonSchemaOf,
  propertyNames,
  type SchemaOutput,
  type ToolSchema,
} from './schema.js';
import {
  promptOutput,
  resourceOutput,
  type PromptBody,
  type ResourceBody,
} from './operation-bodies.js';
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

// What reads and gets return, and what MCP sends of it, as importers of this module know them.
export type {
  PromptBody,
  PromptGet,
  PromptMessage,
  ResourceBody,
  ResourceContents,
  ResourceRead,
} from './operation-bodies.js';

/** A resource's or template's handler argument: a tool call whose `input` is the URI's variables. */
export type ResourceCall<Variables = Record<string, never>, Context = ToolContext> = ToolCall<
  Variables,
  Context
> & {
  /** The URI read. */
  readonly uri: string;
};

/** What resources, templates and prompts declare in common. */
interface OperationConfig<C extends ToolSchema | undefined> {
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
  /** Labels to select it by (an MCP endpoint's `select.tags`). */
  tags?: readonly string[];
  /** The runner stops waiting after this long (`REQUEST_TIMEOUT`). */
  timeoutMs?: number;
  icons?: readonly OperationIcon[];
  /** Free metadata MCP lists carry (`_meta`), e.g. an MCP Apps UI resource's. */
  _meta?: Record<string, unknown>;
}

type ContextValue<C> = C extends ToolSchema ? SchemaOutput<C> : ToolContext;
type InputValue<I> = I extends StandardSchemaV1 ? SchemaOutput<I> : Record<string, unknown>;

/** The options of {@link defineResource}. */
export interface ResourceConfig<
  C extends ToolSchema | undefined = undefined,
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
  C extends ToolSchema | undefined = undefined,
> extends OperationConfig<C> {
  /** An RFC 6570 URI template, e.g. `kb://articles/{slug}`. */
  uriTemplate: string;
  /** The template's variables, parsed from the URI: one key per variable of the template. */
  variables: V;
  mimeType?: string;
  /** Suggestions for the variables (MCP `completion/complete`). */
  complete?: { [K in keyof InputValue<V>]?: Completer };
  read: (call: ResourceCall<InputValue<V>, ContextValue<C>>) => ToolHandlerResult<ResourceBody>;
}

/** The options of {@link definePrompt}. */
export interface PromptConfig<
  A extends ToolInputSchema,
  C extends ToolSchema | undefined = undefined,
> extends OperationConfig<C> {
  /** The prompt's arguments: an object schema of string fields (MCP prompt arguments are strings). */
  args: A;
  /** Suggestions for the arguments (MCP `completion/complete`). */
  complete?: { [K in keyof InputValue<A>]?: Completer };
  get: (call: ToolCall<InputValue<A>, ContextValue<C>>) => ToolHandlerResult<PromptBody>;
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
  readonly tags?: readonly string[];
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
    throw new ToolsConfigurationError(CORE_MESSAGES.operationName(operation.kind, config.name));
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
    ...(config.tags !== undefined && { tags: config.tags }),
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
    throw new ToolsConfigurationError(CORE_MESSAGES.operationHandler(label, String(config?.name)));
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
 *   uri: 'kb://handbook',
 *   name: 'handbook',
 *   title: 'Support handbook',
 *   mimeType: 'text/markdown',
 *   read: () => readFile('handbook.md', 'utf8'),
 * });
 */
export function defineResource<C extends ToolSchema | undefined = undefined>(
  config: ResourceConfig<C>,
): RuntimeOperation {
  return runtimeOperation(config, resourceDeclaration(config), config.read);
}

/** The declaration of a resource (see {@link defineResource}), checked. */
export function resourceDeclaration(
  config: Omit<ResourceConfig<any>, 'read'>,
): OperationDeclaration {
  if (typeof config?.uri !== 'string' || config.uri === '' || UriTemplate.isTemplate(config.uri)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.resourceUri(String(config?.name)));
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
 *   uriTemplate: 'kb://articles/{slug}',
 *   name: 'kb-article',
 *   mimeType: 'text/markdown',
 *   variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
 *   complete: { slug: (value) => articles.slugs().filter((slug) => slug.startsWith(value)) },
 *   read: ({ input }) => articles.body(input.slug),
 * });
 */
export function defineResourceTemplate<
  V extends ToolInputSchema,
  C extends ToolSchema | undefined = undefined,
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
  const name = String(config?.name);
  const owner = `The resource template "${name}"`;
  if (typeof config?.uriTemplate !== 'string' || !UriTemplate.isTemplate(config.uriTemplate)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.templateUri(name));
  }
  const template = new UriTemplate(config.uriTemplate);
  if (!isObjectSchema(config.variables, owner)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.templateVariables(name));
  }
  const keys = propertyNames(config.variables, owner).sort();
  const named = [...new Set(template.variables)].sort();
  if (keys.join(',') !== named.join(',')) {
    throw new ToolsConfigurationError(
      CORE_MESSAGES.templateKeys(name, keys, config.uriTemplate, named),
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
 *   name: 'triage_ticket',
 *   description: 'Triage a ticket',
 *   args: z.object({ id: z.string() }),
 *   get: ({ input }) => `Triage ticket ${input.id}: summarise it and suggest a priority.`,
 * });
 */
export function definePrompt<
  A extends ToolInputSchema,
  C extends ToolSchema | undefined = undefined,
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
  const name = String(config?.name);
  const owner = `The prompt "${name}"`;
  if (!isObjectSchema(config?.args, owner)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.promptArgs(name));
  }
  const properties = (jsonSchemaOf(config.args, 'input', owner) as { properties?: object })
    .properties as Record<string, { type?: unknown }> | undefined;
  for (const [key, field] of Object.entries(properties ?? {})) {
    if (field.type !== 'string') {
      throw new ToolsConfigurationError(CORE_MESSAGES.promptArgument(name, key));
    }
  }
  assertCompletions(config.complete, propertyNames(config.args, owner), owner, methods);
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
      throw new ToolsConfigurationError(CORE_MESSAGES.completesUndeclared(owner, key));
    }
    if (typeof completer === 'function' || (methods && typeof completer === 'string')) continue;
    throw new ToolsConfigurationError(CORE_MESSAGES.completer(owner, key, methods));
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
  const inputSchema = jsonSchemaOf(spec.input, 'input', owner);
  const { operation } = spec;
  const base = {
    name: spec.name,
    description: spec.description,
    identity: spec.identity,
    transports: spec.transports,
    annotations: spec.annotations,
    inputSchema,
    ...(spec.scopes !== undefined && { scopes: spec.scopes }),
    ...(spec.tags !== undefined && { tags: spec.tags }),
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
