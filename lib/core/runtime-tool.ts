import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Observable } from 'rxjs';
import { z } from 'zod';
import { assertToolAsks, type ToolAsker, type ToolAsks } from './asking.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import { assertToolName, deriveToolName } from './naming.js';
import { isScopeToken } from './principal.js';
import {
  deepFreeze,
  isObjectSchema,
  isToolSchema,
  type JsonSchemaDocument,
  type SchemaInput,
  type SchemaOutput,
  type ToolSchema,
} from './schema.js';
import type { OperationIcon, OperationSpec } from './operations.js';
import {
  DEFAULT_TRANSPORTS,
  TOOL_METHODS,
  TOOL_TRANSPORTS,
  type ToolAnnotations,
  type ToolCallInfo,
  type ToolContext,
  type ToolIdentity,
  type ToolLog,
  type ToolMethod,
  type ToolProgress,
  type ToolTaskSupport,
  type ToolTransport,
} from './types.js';

/**
 * The input schema a tool may have: a schema of an object, in Zod (`z.object({...})`), another
 * Standard Schema library (`v.object({...})`, ``type({...})``) or JSON Schema (`type: 'object'`).
 */
export type ToolInputSchema = StandardSchemaV1<any, Record<string, any>> | JsonSchemaDocument;

/**
 * What a handler receives: one object per call.
 *
 * @example
 * handler: async ({ input, context, signal, reportProgress, log, call, confirm, elicit }) => {
 *   if (!(await confirm(`Close ticket ${input.id}?`))) return { closed: false };
 *   const answer = await elicit({ message: 'Priority of the follow-up?', schema: Priority });
 *   reportProgress({ progress: 1, total: 2, message: 'closing' });
 *   log.info(`${call.name} closes ${input.id} for ${String(context.tenantId)}`);
 *   return {
 *     closed: !signal.aborted,
 *     followUp: answer.action === 'accept' ? answer.content : null,
 *   };
 * },
 */
export interface ToolCall<
  Input = Record<string, unknown>,
  Context = ToolContext,
> extends ToolAsker {
  /** The parsed input. */
  readonly input: Input;
  /** The call's context: parsed by the tool's context schema when it has one. */
  readonly context: Context;
  /** Fires when the caller cancels or the tool's `timeoutMs` passes. */
  readonly signal: AbortSignal;
  /** Reports progress; never throws. On MCP it becomes `notifications/progress`. */
  readonly reportProgress: (progress: ToolProgress) => void;
  /** Logs to the caller; never throws. On MCP it becomes `notifications/message`. */
  readonly log: ToolLog;
  /** Who this call is. */
  readonly call: ToolCallInfo;
}

/** A handler may return a value, a promise or an rxjs Observable (its last value is the result). */
export type ToolHandlerResult<R> = R | PromiseLike<R> | Observable<R>;

/** A tool's handler. */
export type ToolHandler<Input = any, Context = any, R = unknown> = (
  call: ToolCall<Input, Context>,
) => ToolHandlerResult<R>;

/** An MCP presentation of a tool's output: the content blocks (and `_meta`) of a `CallToolResult`. */
export interface McpPresentation {
  content: Array<{ type: string; [key: string]: unknown }>;
  _meta?: Record<string, unknown>;
}

/** Per-surface presenters of a successful output. `structuredContent` and `isError` stay the framework's. */
export interface ToolPresenters<Output = unknown> {
  mcp?: (output: Output) => McpPresentation;
  agent?: (output: Output) => unknown;
}

type OutputValue<O> = O extends ToolSchema ? SchemaOutput<O> : unknown;
type HandlerReturn<O> = O extends ToolSchema ? SchemaInput<O> : unknown;
type ContextValue<C> = C extends ToolSchema ? SchemaOutput<C> : ToolContext;
/** What a handler receives as its input: the schema's output, any object for a JSON Schema. */
export type InputValue<I> = I extends StandardSchemaV1 ? SchemaOutput<I> : Record<string, unknown>;

/** Everything a tool declares besides how it runs. Shared by runtime tools and class tools. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly identity: ToolIdentity;
  readonly input: ToolInputSchema;
  readonly output?: ToolSchema;
  /** Parses the call's context inside the runner (factory and `@ToolFactory` tools). */
  readonly context?: ToolSchema;
  readonly transports: readonly ToolTransport[];
  /** The declared annotations over the defaults of `identity.method`. */
  readonly annotations: Readonly<ToolAnnotations>;
  readonly timeoutMs?: number;
  readonly present?: ToolPresenters<any>;
  /** The OAuth scopes a caller's principal must hold (see {@link ToolPrincipal}); none when absent. */
  readonly scopes?: readonly string[];
  /** Labels to select it by (an MCP endpoint's `select.tags`); none when absent. */
  readonly tags?: readonly string[];
  /** What the tool may ask the user while it runs. */
  readonly asks?: ToolAsks;
  /** Whether MCP clients may (or must) run it as a task. */
  readonly task?: ToolTaskSupport;
  /**
   * A resource or a prompt that runs like a tool (see `defineResource`, `definePrompt`), with
   * what MCP lists of it; absent for a tool.
   */
  readonly operation?: OperationSpec;
  /** Icons clients may show for the tool (MCP `icons`). */
  readonly icons?: readonly OperationIcon[];
  /** Free metadata MCP lists carry (`_meta`), e.g. the MCP Apps UI resource of a widget tool. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /** Where the tool was declared, for messages. */
  readonly origin: string;
}

/** A tool defined in code with {@link defineRuntimeTool}. */
export interface RuntimeTool<
  I extends ToolInputSchema = ToolInputSchema,
  O extends ToolSchema | undefined = any,
  C extends ToolSchema | undefined = any,
> extends ToolSpec {
  readonly kind: 'runtime';
  readonly input: I;
  readonly output?: O extends ToolSchema ? O : undefined;
  readonly handler: ToolHandler<InputValue<I>, ContextValue<C>, HandlerReturn<O>>;
}

/** The options of {@link defineRuntimeTool}. */
export interface RuntimeToolConfig<
  I extends ToolInputSchema = ToolInputSchema,
  O extends ToolSchema | undefined = undefined,
  C extends ToolSchema | undefined = undefined,
> {
  /** Defaults to `snake_case(serviceName)_snake_case(action)`. */
  name?: string;
  description: string;
  identity: ToolIdentity;
  /**
   * A schema of an object (Zod, another Standard Schema or JSON Schema, see {@link ToolSchema});
   * a tool that takes no arguments may leave it out (`z.object({})`).
   */
  input?: I;
  output?: O;
  /** A schema for the call's context, parsed once per call by the runner. Usually set by a factory. */
  context?: C;
  /** Default `['MCP', 'AGENT']`; CLI is opt-in; an empty list is refused. */
  transports?: readonly ToolTransport[];
  annotations?: ToolAnnotations;
  /** The runner stops waiting after this long and aborts the handler's signal (`REQUEST_TIMEOUT`). */
  timeoutMs?: number;
  present?: ToolPresenters<OutputValue<O>>;
  /**
   * OAuth scopes the caller's principal (`context.principal`) must hold, checked by the runner
   * on every surface; MCP callers without them are challenged to step up.
   */
  scopes?: readonly string[];
  /**
   * Labels that select the tool, e.g. for one of several MCP endpoints (`select: { tags }`).
   *
   * @example
   * tags: ['admin'],
   */
  tags?: readonly string[];
  /**
   * What the handler may ask the user (`confirm`, `elicit`): every surface carries the question in
   * its own way, and a caller that cannot ask gets `USER_INPUT_UNAVAILABLE`. See docs/asking.md.
   *
   * @example
   * asks: { confirm: true, elicit: [z.object({ priority: z.enum(['low', 'high']) })] },
   */
  asks?: ToolAsks;
  /**
   * Run it as an MCP task: the client gets a handle at once and polls for the result, so the
   * call outlives any one HTTP request. `optional` lets the client choose; `required` makes every
   * MCP call a task. See docs/tasks.md.
   *
   * @example
   * task: 'optional',
   */
  task?: ToolTaskSupport;
  /** Icons clients may show for the tool (MCP `icons`: `{ src, mimeType?, sizes?, theme? }`). */
  icons?: readonly OperationIcon[];
  /**
   * Metadata MCP lists carry with the tool (`_meta`), keys `[prefix/]name`.
   *
   * @example
   * _meta: { 'io.modelcontextprotocol/ui': { resourceUri: 'ui://invoices/chart' } },
   */
  _meta?: Record<string, unknown>;
  handler: ToolHandler<InputValue<I>, ContextValue<C>, HandlerReturn<O>>;
}

const METHOD_ANNOTATIONS: Readonly<Record<ToolMethod, Readonly<ToolAnnotations>>> = {
  GET: { readOnlyHint: true },
  POST: { readOnlyHint: false },
  PUT: { readOnlyHint: false, idempotentHint: true },
  PATCH: { readOnlyHint: false },
  DELETE: { readOnlyHint: false, destructiveHint: true },
};

/** The annotations of a tool: the defaults of its semantic method with the declared ones over them. */
export function resolveAnnotations(
  method: ToolMethod,
  declared?: ToolAnnotations,
): Readonly<ToolAnnotations> {
  return Object.freeze({ ...METHOD_ANNOTATIONS[method], ...declared });
}

/** The fields of a tool declaration that {@link toolSpec} normalises. */
export interface ToolDeclaration {
  name?: string;
  description: string;
  identity: ToolIdentity;
  input?: unknown;
  output?: unknown;
  context?: unknown;
  transports?: readonly ToolTransport[];
  annotations?: ToolAnnotations;
  timeoutMs?: number;
  present?: ToolPresenters<any>;
  scopes?: readonly string[];
  tags?: readonly string[];
  asks?: ToolAsks;
  task?: ToolTaskSupport;
  /** A resource or prompt (see `OperationDeclaration`). */
  operation?: OperationSpec;
  icons?: readonly OperationIcon[];
  _meta?: Record<string, unknown>;
}

/** The input of a tool that declares none: an empty object, so its callers send `{}`. */
const NO_INPUT = z.object({});

/** The input schema type of a tool that declares none. */
export type NoInput = typeof NO_INPUT;

/**
 * Normalises a declaration into a frozen {@link ToolSpec}: derives the name, fills transports and
 * annotations. Only refuses what makes the declaration unreadable; {@link assertToolSpec} checks the rest.
 */
export function toolSpec(declaration: ToolDeclaration, origin: string): ToolSpec {
  const { identity } = declaration;
  if (typeof identity !== 'object' || identity === null) {
    throw new ToolsConfigurationError(CORE_MESSAGES.noIdentity(origin));
  }
  const spec: Record<string, unknown> = {
    name: declaration.name ?? deriveToolName(identity.serviceName, identity.action),
    description: declaration.description,
    identity: Object.freeze({ ...identity }),
    input: declaration.input === undefined ? NO_INPUT : declaration.input,
    transports: Object.freeze([...(declaration.transports ?? DEFAULT_TRANSPORTS)]),
    annotations: resolveAnnotations(identity.method, declaration.annotations),
    origin,
  };
  if (declaration.output !== undefined) spec.output = declaration.output;
  if (declaration.context !== undefined) spec.context = declaration.context;
  if (declaration.timeoutMs !== undefined) spec.timeoutMs = declaration.timeoutMs;
  if (declaration.present !== undefined) spec.present = Object.freeze({ ...declaration.present });
  if (declaration.operation !== undefined) spec.operation = declaration.operation;
  if (declaration.task !== undefined) spec.task = declaration.task;
  if (declaration.icons !== undefined) spec.icons = deepFreeze(declaration.icons);
  if (declaration._meta !== undefined) spec._meta = deepFreeze(declaration._meta);
  if (!Array.isArray(declaration.scopes)) {
    if (declaration.scopes !== undefined) spec.scopes = declaration.scopes;
  } else if (declaration.scopes.length > 0) {
    spec.scopes = Object.freeze([...new Set(declaration.scopes)]);
  }
  // Anything but a list is kept as it is, for assertToolSpec to refuse.
  if (!Array.isArray(declaration.tags)) {
    if (declaration.tags !== undefined) spec.tags = declaration.tags;
  } else if (declaration.tags.length > 0) {
    spec.tags = Object.freeze([...new Set(declaration.tags)]);
  }
  if (declaration.asks !== undefined) {
    const { asks } = declaration;
    spec.asks =
      typeof asks === 'object' && asks !== null
        ? Object.freeze({
            ...asks,
            ...(Array.isArray(asks.elicit) && { elicit: Object.freeze([...asks.elicit]) }),
          })
        : asks;
  }
  return spec as unknown as ToolSpec;
}

/**
 * Refuses a tool that cannot be mounted with a `ToolsConfigurationError` naming it and saying how
 * to fix it: a bad name, a non-object input schema, an unknown method or transport, an empty
 * transport list. (Schemas JSON Schema cannot express are refused by `describeTool`.)
 */
export function assertToolSpec(spec: ToolSpec): void {
  const where = `${spec.origin}`;
  assertToolName(spec.name, where);
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    throw new ToolsConfigurationError(CORE_MESSAGES.noDescription(spec.name, where));
  }
  if (!TOOL_METHODS.includes(spec.identity.method)) {
    throw new ToolsConfigurationError(
      CORE_MESSAGES.unknownMethod(spec.name, where, spec.identity.method),
    );
  }
  if (!isObjectSchema(spec.input, `Tool "${spec.name}" (${where})`)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.inputNotObject(spec.name, where));
  }
  if (spec.output !== undefined && !isToolSchema(spec.output)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.outputNotSchema(spec.name, where));
  }
  if (spec.context !== undefined && !isToolSchema(spec.context)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.contextNotSchema(spec.name, where));
  }
  if (spec.transports.length === 0) {
    throw new ToolsConfigurationError(CORE_MESSAGES.noTransport(spec.name, where));
  }
  for (const transport of spec.transports) {
    if (!TOOL_TRANSPORTS.includes(transport)) {
      throw new ToolsConfigurationError(
        CORE_MESSAGES.unknownTransport(spec.name, where, transport),
      );
    }
  }
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.timeoutMs(spec.name, where, spec.timeoutMs));
  }
  if (spec.scopes !== undefined && !Array.isArray(spec.scopes)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.scope(spec.name, where, spec.scopes));
  }
  for (const scope of spec.scopes ?? []) {
    if (!isScopeToken(scope)) {
      throw new ToolsConfigurationError(CORE_MESSAGES.scope(spec.name, where, scope));
    }
  }
  if (spec.tags !== undefined && !(Array.isArray(spec.tags) && spec.tags.every(isTag))) {
    throw new ToolsConfigurationError(CORE_MESSAGES.tags(spec.name, where, spec.tags));
  }
  if (spec.asks !== undefined) assertToolAsks(spec.asks, `Tool "${spec.name}" (${where})`);
  if (spec.task !== undefined && spec.task !== 'optional' && spec.task !== 'required') {
    throw new ToolsConfigurationError(CORE_MESSAGES.task(spec.name, where, spec.task));
  }
  if (spec.task !== undefined && spec.operation !== undefined) {
    throw new ToolsConfigurationError(
      CORE_MESSAGES.taskOnOperation(spec.name, where, spec.operation.kind),
    );
  }
  assertListingMetadata(spec, `"${spec.name}" (${where})`);
  if (spec.present !== undefined && spec.output === undefined) {
    throw new ToolsConfigurationError(CORE_MESSAGES.presentersWithoutOutput(spec.name, where));
  }
}

/** A tag: a label of letters, digits and `_ . : / -`, 1 to 64 of them. */
function isTag(tag: unknown): boolean {
  return typeof tag === 'string' && /^[\w.:/-]{1,64}$/.test(tag);
}

/**
 * Where a runtime tool was declared, for messages: `runtime tool serviceName.action` (its
 * identity, which tells two tools of the same explicit name apart).
 */
export function runtimeToolOrigin(config: { name?: string; identity?: ToolIdentity }): string {
  const { identity } = config;
  if (typeof identity !== 'object' || identity === null) {
    return `runtime tool "${config.name ?? '(unnamed)'}"`;
  }
  return `runtime tool ${identity.serviceName}.${identity.action}`;
}

/**
 * Declares a tool in code: a typed operation with a Zod input, an optional Zod output and an
 * identity. The result is frozen and can go into a registry or straight into an invoker.
 *
 * @example
 * export const pingTool = defineRuntimeTool({
 *   description: 'Answer pong',
 *   identity: { serviceName: 'health', action: 'ping', method: 'GET' },
 *   input: z.object({}),
 *   output: z.object({ pong: z.boolean() }),
 *   handler: () => ({ pong: true }),
 * });
 */
export function defineRuntimeTool<
  I extends ToolInputSchema = NoInput,
  O extends ToolSchema | undefined = undefined,
  C extends ToolSchema | undefined = undefined,
>(config: RuntimeToolConfig<I, O, C>): RuntimeTool<I, O, C> {
  const origin = runtimeToolOrigin(config);
  const spec = toolSpec(config, origin);
  assertToolSpec(spec);
  if (typeof config.handler !== 'function') {
    throw new ToolsConfigurationError(CORE_MESSAGES.noHandler(spec.name, origin));
  }
  return Object.freeze({ ...spec, kind: 'runtime', handler: config.handler }) as RuntimeTool<
    I,
    O,
    C
  >;
}

/** Whether a value is a tool made by {@link defineRuntimeTool}. */
export function isRuntimeTool(value: unknown): value is RuntimeTool {
  return typeof value === 'object' && value !== null && (value as RuntimeTool).kind === 'runtime';
}

/** A `_meta` key: an optional prefix of dot-separated labels and "/", then a name. */
const META_KEY =
  /^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)$/;

/**
 * Refuses `icons` and `_meta` MCP would not carry, naming the owner: an icon is
 * `{ src, mimeType?, sizes?, theme? }` with an `https:` or `data:` source; a `_meta` key is
 * `[prefix/]name` as the specification spells it.
 */
export function assertListingMetadata(
  spec: { readonly icons?: unknown; readonly _meta?: unknown },
  owner: string,
): void {
  const { icons, _meta } = spec;
  if (icons !== undefined) {
    if (!Array.isArray(icons)) {
      throw new ToolsConfigurationError(CORE_MESSAGES.icons(owner));
    }
    for (const icon of icons as Array<Record<string, unknown>>) {
      const src = icon?.src;
      const sizes = icon?.sizes;
      if (
        typeof src !== 'string' ||
        !/^(https:|data:)/.test(src) ||
        (icon.mimeType !== undefined && typeof icon.mimeType !== 'string') ||
        (sizes !== undefined &&
          !(Array.isArray(sizes) && sizes.every((size) => typeof size === 'string'))) ||
        (icon.theme !== undefined && icon.theme !== 'light' && icon.theme !== 'dark')
      ) {
        throw new ToolsConfigurationError(CORE_MESSAGES.icon(owner, icon));
      }
    }
  }
  if (_meta !== undefined) {
    if (typeof _meta !== 'object' || _meta === null || Array.isArray(_meta)) {
      throw new ToolsConfigurationError(CORE_MESSAGES.metaNotObject(owner));
    }
    for (const key of Object.keys(_meta)) {
      if (!META_KEY.test(key)) {
        throw new ToolsConfigurationError(CORE_MESSAGES.metaKey(owner, key));
      }
    }
  }
}
