import {
  asProgrammingError,
  ToolError,
  ToolsConfigurationError,
  type ErrorMapper,
} from './errors.js';
import {
  composeHooks,
  type ToolCallEvent,
  type ToolGuard,
  type ToolHooks,
  type ToolLogger,
  type UnexpectedErrorLevel,
} from './hooks.js';
import { describeTool, type ToolDescriptor } from './manifest.js';
import { unknownToolMessage } from './naming.js';
import { isListable, listsPerCaller } from './listing.js';
import { linkCompiledTools, type RunOptions } from './compiled-tools.js';
import { Drain } from './drain.js';
import { resolveCallContext } from './ambient-context.js';
import { resolveTools, type ToolCollection, type ToolDefinition } from './registry.js';
import { toToolError, type ToolResult } from './result.js';
import { runTool, type CallRequest, type CompiledTool, type RunnerSettings } from './runner.js';
import { otel, ToolTelemetry, type ToolTelemetryOptions } from './telemetry.js';
import type { UriTemplate } from './uri-template.js';
import type { ToolAsk } from './asking.js';
import { assertToolSpec, type ToolCall, type ToolSpec } from './runtime-tool.js';
import {
  describeOperation,
  type Completer,
  type OperationDescriptor,
  type OperationSpec,
  type PromptGet,
  type ResourceContents,
  type ResourceRead,
} from './operations.js';
import type { ClassTool } from './tool-class.js';
import {
  TOOL_TRANSPORTS,
  type ToolCallInfo,
  type ToolContext,
  type ToolLogLevel,
  type ToolProgress,
  type ToolSource,
  type ToolTransport,
} from './types.js';

/** How a class tool runs: its handler and its guards, bound by whoever owns the instances. */
export interface BoundClassTool {
  readonly handler: (call: ToolCall<any, any>) => unknown;
  readonly guards?: readonly ToolGuard[];
  /** The class's methods named as completers (`complete: { slug: 'slugs' }`), bound. */
  readonly methods?: (name: string) => Completer;
}

/** Binds class tools to instances. The Nest layer binds them to the container's instances. */
export type ClassToolBinder = (tool: ClassTool) => BoundClassTool;

/** Options of {@link createToolInvoker}. */
export interface ToolInvokerOptions {
  /** Observers of every call, in order. */
  hooks?: ToolHooks | readonly ToolHooks[];
  /** Guards for every call, before each tool's own. */
  guards?: readonly ToolGuard[];
  /** Nesting beyond this depth fails with `RECURSION_LIMIT`. Default 8. */
  maxDepth?: number;
  /**
   * Maps thrown values the core does not know to a `ToolError`; a list is consulted in order,
   * the first `ToolError` winning. A mapper that throws, or answers anything but a `ToolError`
   * or `undefined`, is logged and passed over.
   */
  mapError?: ErrorMapper | readonly ErrorMapper[];
  /** Where swallowed hook failures and unexpected failures are reported. Default `console`. */
  logger?: ToolLogger;
  /**
   * The level at which a call's unexpected failure is logged (with the tool, the call id and the
   * stack; never the arguments or the context), or `false` for none. Unexpected: anything the
   * caller sees as `INTERNAL_SERVER_ERROR` — a thrown value no mapper made a `ToolError`, or an
   * output that does not match its schema. Default `'error'`.
   *
   * @example
   * createToolInvoker(registry, { logUnexpectedErrors: 'warn' });
   */
  logUnexpectedErrors?: UnexpectedErrorLevel;
  /** The ambient context of the current request; the caller's explicit context is merged over it. */
  resolveContext?: RunnerSettings['resolveContext'];
  /** Called once per finished call, before the caller's promise settles. */
  onCallFinished?: (event: ToolCallEvent) => void;
  /** Binds class tools; by default each class is instantiated once with `new`. */
  bind?: ClassToolBinder;
  /**
   * OpenTelemetry spans and metrics of every call, emitted when the application registers an
   * SDK (`@opentelemetry/api` is an optional peer; without an SDK nothing is created). `false`
   * turns them off. See docs/observability.md.
   *
   * @example
   * createToolInvoker(registry, { telemetry: { attributes: (context) => ({ 'app.tenant.id': context.tenantId as string }) } });
   */
  telemetry?: ToolTelemetryOptions | false;
  /**
   * Warns (through `logger.warn`) at composition about each tool whose annotations lack a
   * `title`, or a `destructiveHint` while it is not read-only: some assistant directories
   * require them. The method-derived defaults still apply. @default false
   *
   * @example
   * createToolInvoker(registry, { lintAnnotations: true });
   */
  lintAnnotations?: boolean;
}

/** Options of one call. */
export interface InvokeOptions {
  /** Required: the exposure policy of this call. A tool not exposed here does not exist for it. */
  transport: ToolTransport;
  /**
   * Who started the call, for audit and for the answer to an unknown name. `'internal'` (the
   * default) is the application's own code, for which an unknown name is a programming error:
   * still a `NOT_FOUND`, but a request it reaches is answered 500 without the closest names;
   * pass another source (`'rest'`, say) when the name comes from your own caller, who then gets
   * the `NOT_FOUND` with the closest names.
   */
  source?: ToolSource;
  /** Merged over the context resolved from the current request, if any. */
  context?: ToolContext;
  /** Cancels the call: the result is `REQUEST_ABORTED` and the handler's signal fires. */
  signal?: AbortSignal;
  /** Receives the handler's `reportProgress` updates. */
  onProgress?: (progress: ToolProgress) => unknown;
  /** Receives the handler's `log` messages. */
  onLog?: (level: ToolLogLevel, message: string, data?: unknown) => unknown;
  /**
   * Runs the tool's presenter for this surface on a success, inside the call: read it with
   * `presentationOf(result)`; a presenter that throws makes the call an `INTERNAL_SERVER_ERROR`.
   */
  present?: 'mcp' | 'agent';
  /** The model's id of this tool call, when a model asked for it: the span's `gen_ai.tool.call.id`. */
  toolCallId?: string;
  /**
   * The OpenTelemetry `Context` the call's span is a child of (a job's context extracted from its
   * message, say). Default: the enclosing call's span, or the active context.
   */
  traceContext?: unknown;
  /**
   * Answers the questions the tool asks (`confirm`, `elicit`) — by asking the user. Without it, a
   * call whose handler asks fails with `USER_INPUT_UNAVAILABLE`. Calls made inside this one ask
   * through it too.
   *
   * @example
   * invoker.invoke('tickets_close', { id: 'T-1' }, { transport: 'AGENT', ask: async () => ({ action: 'accept' }) });
   */
  ask?: ToolAsk;
}

/**
 * Runs tools by name through the canonical runner.
 *
 * @example
 * const result = await invoker.invoke('billing_get_invoice', { id: 'inv_1' }, { transport: 'AGENT' });
 */
export interface ToolInvoker {
  /**
   * Runs a tool; every outcome of a found tool is a `ToolResult`. An unknown name rejects with a
   * `NOT_FOUND` `ToolError` listing the closest names, before anything runs. When the
   * application's own code chose it (`source` left at `'internal'`) it is a programming error:
   * `ToolErrorFilter` answers it 500 without listing any tool, and a tool whose handler lets it
   * escape fails with `INTERNAL_SERVER_ERROR` (logged).
   */
  invoke<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<T>>;
  /** Like `invoke`, but resolves to the data or rejects with the call's `ToolError`. */
  invokeOrThrow<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<T>;
  /** The names exposed on a transport: sorted, frozen, the same array on every call. */
  names(transport: ToolTransport): readonly string[];
  /** One frozen descriptor per tool exposed on a transport, in declaration order. */
  manifest(transport: ToolTransport): readonly ToolDescriptor[];
  /**
   * The descriptors a caller may see on a transport: the manifest filtered by the guards'
   * `canList` for the call's context (resolved as a call's would be). The manifest itself when
   * no guard filters listings.
   */
  visible(
    transport: ToolTransport,
    options?: { context?: ToolContext },
  ): Promise<readonly ToolDescriptor[]>;
  /**
   * Whether `visible` can leave tools out on a transport: some tool exposed there requires
   * scopes or has a guard with `canList`. When it is `false`, every caller sees the whole manifest.
   */
  filtersListing(transport: ToolTransport): boolean;
  /**
   * The descriptor of the tool exposed under a name on a transport (identity, schemas,
   * annotations, transports), or `undefined` when there is none.
   *
   * @example
   * invoker.find('billing_get_invoice', 'MCP')?.inputSchema;
   */
  find(name: string, transport: ToolTransport): ToolDescriptor | undefined;
  /**
   * Reads a resource through the canonical runner: the resource of that URI, else the first
   * resource template that matches it (its variables parsed by the template's schema). Every
   * outcome of a found resource is a `ToolResult` of `{ contents }`. A URI nothing serves
   * rejects as an unknown tool name does (`NOT_FOUND`, a programming error for
   * `source: 'internal'`).
   *
   * @example
   * const read = await invoker.readResource('kb://articles/reset-password', { transport: 'AGENT' });
   * if (read.ok) console.log(read.data.contents[0]);
   */
  readResource(uri: string, options: InvokeOptions): Promise<ToolResult<ResourceRead>>;
  /**
   * Gets a prompt's messages through the canonical runner, its arguments parsed by its schema.
   * An unknown name rejects as for `invoke`.
   *
   * @example
   * const prompt = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, { transport: 'AGENT' });
   */
  getPrompt(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<PromptGet>>;
  /**
   * The resources (with the resource templates) or the prompts exposed on a transport, in
   * declaration order: frozen, the same array on every call.
   *
   * @example
   * invoker.operations('MCP', 'resource').map((d) => d.uri ?? d.uriTemplate);
   */
  operations(transport: ToolTransport, kind: 'resource' | 'prompt'): readonly OperationDescriptor[];
  /**
   * The resources or prompts a caller may see on a transport: filtered by the scopes they
   * require and the guards' `canList`, as `visible` filters tools.
   */
  visibleOperations(
    transport: ToolTransport,
    kind: 'resource' | 'prompt',
    options?: { context?: ToolContext },
  ): Promise<readonly OperationDescriptor[]>;
  /**
   * Suggestions for an argument of a prompt or resource template (by name), from its
   * `complete` declaration: at most 100, none for one the caller may not see or that declares
   * none. A completer that throws is logged and suggests nothing.
   *
   * @example
   * await invoker.complete('kb-article', { name: 'slug', value: 're' }, { transport: 'MCP' }); // ['reset-password']
   */
  complete(
    name: string,
    argument: { name: string; value: string },
    options: {
      transport: ToolTransport;
      context?: ToolContext;
      arguments?: Readonly<Record<string, string>>;
    },
  ): Promise<readonly string[]>;
  /**
   * Shuts down gracefully: new calls answer `SERVICE_UNAVAILABLE` (retryable), running calls get
   * `graceMs` (default 10 s) to finish, then the handlers still running have their signal aborted.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

interface Surface {
  readonly tools: readonly CompiledTool[];
  readonly filtersListing: boolean;
  readonly byName: ReadonlyMap<string, CompiledTool>;
  readonly names: readonly string[];
  readonly manifest: readonly ToolDescriptor[];
  /** The resources, templates and prompts, by name. */
  readonly operationsByName: ReadonlyMap<string, CompiledTool>;
  readonly operations: Readonly<Record<'resource' | 'prompt', readonly CompiledTool[]>>;
  readonly catalogs: Readonly<Record<'resource' | 'prompt', readonly OperationDescriptor[]>>;
  /** The resources of a fixed URI, by URI. */
  readonly resourcesByUri: ReadonlyMap<string, CompiledTool>;
  /** The resource templates, in declaration order (the first that matches a URI serves it). */
  readonly templates: readonly CompiledTool[];
}

/** What a compiled resource or prompt declares beyond a tool. */
function operationOf(tool: CompiledTool): OperationSpec {
  return tool.spec.operation!;
}

function defaultBinder(): ClassToolBinder {
  const instances = new Map<ClassTool['target'], any>();
  const instantiate = (target: any) => {
    if (!instances.has(target)) instances.set(target, new target());
    return instances.get(target);
  };
  return (tool) => {
    const instance = instantiate(tool.target);
    if (typeof instance[tool.methodName] !== 'function') {
      throw new ToolsConfigurationError(
        `Tool "${tool.name}" (${tool.origin}) has no method to call: ` +
          `${tool.target.name} has no method "${tool.methodName}".`,
      );
    }
    return {
      handler: (call) => instance[tool.methodName](call),
      guards: tool.guards.map((guard) =>
        typeof guard === 'function' ? instantiate(guard) : guard,
      ),
      methods: (name) => (value, options) => instance[name](value, options),
    };
  };
}

function assertTransport(transport: unknown): asserts transport is ToolTransport {
  if (!TOOL_TRANSPORTS.includes(transport as ToolTransport)) {
    throw new TypeError(
      `A call needs { transport } set to one of ${TOOL_TRANSPORTS.join(', ')}; got ${JSON.stringify(transport)}.`,
    );
  }
}

function compileTool(
  definition: ToolDefinition,
  guards: readonly ToolGuard[],
  bind: ClassToolBinder,
): CompiledTool {
  assertToolSpec(definition);
  const bound =
    definition.kind === 'class' ? bind(definition) : { handler: definition.handler, guards: [] };
  if (definition.kind === 'class' && typeof bound.handler !== 'function') {
    throw new ToolsConfigurationError(
      `Tool "${definition.name}" (${definition.origin}) has no method to call.`,
    );
  }
  const completers = definition.operation?.complete && bindCompleters(definition, bound);
  return Object.freeze({
    kind: definition.operation?.kind ?? 'tool',
    ...(definition.operation?.kind === 'resource' && { finish: withUri }),
    ...(completers && { completers }),
    spec: definition,
    descriptor: definition.operation
      ? describeOperation(definition as ToolSpec & { operation: OperationSpec })
      : describeTool(definition),
    handler: bound.handler,
    guards: Object.freeze([...guards, ...(bound.guards ?? [])]),
  });
}

/** The completers of a resource template or prompt, method names bound to the class's instance. */
function bindCompleters(
  definition: ToolDefinition,
  bound: BoundClassTool,
): Readonly<Record<string, Completer>> {
  const completers: Record<string, Completer> = {};
  for (const [argument, completer] of Object.entries(definition.operation!.complete!)) {
    if (typeof completer === 'function') {
      completers[argument] = completer;
      continue;
    }
    const target = definition.kind === 'class' ? definition.target : undefined;
    const method = (target?.prototype as Record<string, unknown> | undefined)?.[completer];
    if (!bound.methods || typeof method !== 'function') {
      throw new ToolsConfigurationError(
        `"${definition.name}" (${definition.origin}) completes "${argument}" with "${completer}", ` +
          `which is not a method of ${target?.name ?? 'its class'}.`,
      );
    }
    completers[argument] = bound.methods(completer);
  }
  return Object.freeze(completers);
}

/**
 * Compiles tools once into an immutable name → tool map per transport and runs them through the
 * canonical runner. Takes a registry builder, its `build()` result, or a list of runtime tools
 * and tool classes.
 *
 * @example
 * const invoker = createToolInvoker([pingTool], { hooks: { afterToolCall: (o) => log(o) } });
 * await invoker.invoke('health_ping', {}, { transport: 'AGENT' }); // { ok: true, data: { pong: true } }
 */
export function createToolInvoker(
  collection: ToolCollection,
  options: ToolInvokerOptions = {},
): ToolInvoker {
  const maxDepth = options.maxDepth ?? 8;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new TypeError(`maxDepth must be a non-negative integer, got ${options.maxDepth}.`);
  }
  const definitions = resolveTools(collection);
  const bind = options.bind ?? defaultBinder();
  const globalGuards = Object.freeze([...(options.guards ?? [])]);
  const compiled = definitions.map((definition) => compileTool(definition, globalGuards, bind));

  const surfaces = new Map<ToolTransport, Surface>(
    TOOL_TRANSPORTS.map((transport) => {
      const onTransport = compiled.filter((tool) => tool.spec.transports.includes(transport));
      const exposed = onTransport.filter((tool) => tool.kind === 'tool');
      const resources = onTransport.filter((tool) => tool.kind === 'resource');
      const prompts = onTransport.filter((tool) => tool.kind === 'prompt');
      return [
        transport,
        Object.freeze({
          tools: Object.freeze(exposed),
          filtersListing: exposed.some(listsPerCaller),
          byName: new Map(exposed.map((tool) => [tool.spec.name, tool])),
          names: Object.freeze(exposed.map((tool) => tool.spec.name).sort()),
          manifest: Object.freeze(exposed.map((tool) => tool.descriptor)),
          operationsByName: new Map(
            [...resources, ...prompts].map((tool) => [tool.spec.name, tool]),
          ),
          operations: Object.freeze({
            resource: Object.freeze(resources),
            prompt: Object.freeze(prompts),
          }),
          catalogs: Object.freeze({
            resource: Object.freeze(
              resources.map((tool) => tool.descriptor as OperationDescriptor),
            ),
            prompt: Object.freeze(prompts.map((tool) => tool.descriptor as OperationDescriptor)),
          }),
          resourcesByUri: byUri(resources),
          templates: Object.freeze(
            resources.filter(
              (tool) => (operationOf(tool) as { uriTemplate?: unknown }).uriTemplate,
            ),
          ),
        }),
      ];
    }),
  );
  const surface = (transport: unknown): Surface => {
    assertTransport(transport);
    return surfaces.get(transport)!;
  };

  const drain = new Drain();
  const logger = options.logger ?? console;
  if (options.lintAnnotations) lintAnnotations(compiled, logger);
  const telemetry =
    otel && options.telemetry !== false
      ? new ToolTelemetry(options.telemetry ?? {}, logger)
      : undefined;
  const settings: RunnerSettings = Object.freeze({
    drain,
    hooks: composeHooks(options.hooks),
    maxDepth,
    mappers: Object.freeze(
      options.mapError === undefined ? [] : [options.mapError].flat(),
    ) as readonly ErrorMapper[],
    logger,
    telemetry,
    logUnexpected: options.logUnexpectedErrors ?? 'error',
    resolveContext: options.resolveContext,
    onCallFinished: options.onCallFinished,
  });

  const callRequest = (args: unknown, invokeOptions: RunOptions, uri?: string): CallRequest => ({
    transport: invokeOptions.transport,
    source: invokeOptions.source ?? 'internal',
    args,
    context: invokeOptions.context,
    signal: invokeOptions.signal,
    onProgress: invokeOptions.onProgress,
    onLog: invokeOptions.onLog,
    present: invokeOptions.present,
    toolCallId: invokeOptions.toolCallId,
    traceContext: invokeOptions.traceContext,
    ask: invokeOptions.ask,
    ...(uri !== undefined && { uri }),
  });

  const invoke = <T>(
    name: string,
    args: unknown,
    invokeOptions: InvokeOptions,
  ): Promise<ToolResult<T>> => {
    try {
      const { byName, names } = surface(invokeOptions?.transport);
      const tool = byName.get(name);
      const source = invokeOptions.source ?? 'internal';
      if (!tool) throw unknownTool(String(name), names, invokeOptions.transport, source);
      return Promise.resolve(
        runTool(tool, callRequest(args, invokeOptions), settings) as ToolResult<T>,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /** The resource that serves a URI on a transport, and the variables it reads, if any does. */
  const resolveResource = (uri: string, transport: ToolTransport) => {
    const { resourcesByUri, templates } = surface(transport);
    const resource = resourcesByUri.get(uri);
    if (resource) return { resource, variables: {} };
    if (typeof uri !== 'string') return undefined;
    for (const template of templates) {
      const { uriTemplate } = operationOf(template) as { uriTemplate: UriTemplate };
      const variables = uriTemplate.match(uri);
      if (variables) return { resource: template, variables };
    }
    return undefined;
  };

  const readResource = (
    uri: string,
    invokeOptions: InvokeOptions,
  ): Promise<ToolResult<ResourceRead>> => {
    try {
      const { resource, variables } = resolveResource(uri, invokeOptions?.transport) ?? {};
      if (!resource)
        throw unknownResource(
          String(uri),
          invokeOptions.transport,
          invokeOptions.source ?? 'internal',
        );
      return Promise.resolve(
        runTool(
          resource,
          callRequest(variables, invokeOptions, uri),
          settings,
        ) as ToolResult<ResourceRead>,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const getPrompt = (
    name: string,
    args: unknown,
    invokeOptions: InvokeOptions,
  ): Promise<ToolResult<PromptGet>> => {
    try {
      const { operationsByName, operations } = surface(invokeOptions?.transport);
      const prompt = operationsByName.get(name);
      const source = invokeOptions.source ?? 'internal';
      if (!prompt || prompt.kind !== 'prompt') {
        const names = operations.prompt.map((tool) => tool.spec.name).sort();
        throw unknownTool(String(name), names, invokeOptions.transport, source, 'prompt');
      }
      return Promise.resolve(
        runTool(prompt, callRequest(args, invokeOptions), settings) as ToolResult<PromptGet>,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const invoker: ToolInvoker = Object.freeze({
    invoke,
    async invokeOrThrow<T>(name: string, args: unknown, invokeOptions: InvokeOptions): Promise<T> {
      const result = await invoke<T>(name, args, invokeOptions);
      if (result.ok) return result.data;
      throw toToolError(result.error);
    },
    names: (transport: ToolTransport) => surface(transport).names,
    manifest: (transport: ToolTransport) => surface(transport).manifest,
    async visible(transport: ToolTransport, visibleOptions?: { context?: ToolContext }) {
      const { tools, filtersListing, manifest } = surface(transport);
      if (!filtersListing) return manifest;
      const context = await resolveCallContext(settings.resolveContext, visibleOptions?.context);
      const listed = await Promise.all(tools.map((tool) => isListable(tool, context)));
      return Object.freeze(manifest.filter((_, index) => listed[index]));
    },
    filtersListing: (transport: ToolTransport) => surface(transport).filtersListing,
    readResource,
    getPrompt,
    operations: (transport: ToolTransport, kind: 'resource' | 'prompt') =>
      surface(transport).catalogs[kind],
    async visibleOperations(
      transport: ToolTransport,
      kind: 'resource' | 'prompt',
      visibleOptions?: { context?: ToolContext },
    ) {
      const { operations, catalogs } = surface(transport);
      const tools = operations[kind];
      if (!tools.some(listsPerCaller)) return catalogs[kind];
      const context = await resolveCallContext(settings.resolveContext, visibleOptions?.context);
      const listed = await Promise.all(tools.map((tool) => isListable(tool, context)));
      return Object.freeze(catalogs[kind].filter((_, index) => listed[index]));
    },
    async complete(
      name: string,
      argument: { name: string; value: string },
      completeOptions: Parameters<ToolInvoker['complete']>[2],
    ) {
      const tool = surface(completeOptions?.transport).operationsByName.get(name);
      const completers = tool?.completers;
      const completer =
        completers && Object.hasOwn(completers, argument?.name) && completers[argument.name];
      if (!tool || !completer) return [];
      const context = await resolveCallContext(settings.resolveContext, completeOptions.context);
      if (!(await isListable(tool, context))) return [];
      try {
        const values = await completer(String(argument.value ?? ''), {
          context,
          arguments: completeOptions.arguments ?? {},
        });
        return Object.freeze(
          (Array.isArray(values) ? values : [])
            .filter((value) => typeof value === 'string')
            .slice(0, 100),
        );
      } catch (error) {
        logger.error(`[toolwright] The completer of "${name}".${argument.name} failed:`, error);
        return [];
      }
    },
    find: (name: string, transport: ToolTransport) =>
      surface(transport).byName.get(name)?.descriptor,
    close: (closeOptions?: { graceMs?: number }) => drain.close(closeOptions?.graceMs ?? 10_000),
  });
  linkCompiledTools(invoker, {
    lookup: (name, transport) => surface(transport).byName.get(name),
    run: (tool, args, runOptions) => runTool(tool, callRequest(args, runOptions), settings),
    read: (uri, runOptions) => {
      const { resource, variables } = resolveResource(uri, runOptions.transport) ?? {};
      return (
        resource &&
        (runTool(resource, callRequest(variables, runOptions, uri), settings) as
          ToolResult<ResourceRead> | Promise<ToolResult<ResourceRead>>)
      );
    },
    operations: (transport, kind) => surface(transport).operations[kind],
    resource: (uri, transport) => resolveResource(uri, transport)?.resource,
    prompt: (name, transport) => {
      const found = surface(transport).operationsByName.get(name);
      return found?.kind === 'prompt' ? found : undefined;
    },
    context: (explicit) => resolveCallContext(settings.resolveContext, explicit),
    telemetry,
  });
  return invoker;
}

/**
 * The rejection for a name no tool has: a `NOT_FOUND` naming the closest names, whoever chose
 * the name. The call's `source` says who did: a caller (MCP, an agent, the command line, or
 * whatever source the application passes for its own callers) may be told; the application's
 * own code (`'internal'`) made a programming error, marked as such so that no request it serves
 * is answered with the tool names (see `asProgrammingError`).
 */
function unknownTool(
  name: string,
  names: readonly string[],
  transport: ToolTransport,
  source: ToolSource,
  kind: 'tool' | 'prompt' = 'tool',
): ToolError {
  const message = unknownToolMessage(name, names, kind);
  return notFound(message, { name, transport }, source);
}

/** The rejection for a URI no resource or template serves (see {@link unknownTool}). */
function unknownResource(uri: string, transport: ToolTransport, source: ToolSource): ToolError {
  return notFound(`No resource at "${uri}".`, { uri, transport }, source);
}

function notFound(message: string, details: Record<string, unknown>, source: ToolSource) {
  const error = new ToolError('NOT_FOUND', { message, details });
  return source === 'internal' ? asProgrammingError(error) : error;
}

/** The resources of a fixed URI by URI; two at one URI are refused, naming both. */
function byUri(resources: readonly CompiledTool[]): ReadonlyMap<string, CompiledTool> {
  const found = new Map<string, CompiledTool>();
  for (const tool of resources) {
    const { uri } = operationOf(tool) as { uri?: string };
    if (uri === undefined) continue;
    const other = found.get(uri);
    if (other) {
      throw new ToolsConfigurationError(
        `The resources "${other.spec.name}" (${other.spec.origin}) and "${tool.spec.name}" ` +
          `(${tool.spec.origin}) are both at "${uri}": give each its own URI.`,
      );
    }
    found.set(uri, tool);
  }
  return found;
}

/**
 * A read's contents as the caller and the hooks get them: `{ contents }`, the URI read on every
 * content that does not name its own.
 */
function withUri(contents: unknown, call: ToolCallInfo): ResourceRead {
  // The contents are the output check's own objects, made for this read.
  for (const content of contents as Array<{ uri?: string }>) content.uri ??= call.uri;
  return { contents: contents as ResourceContents[] };
}

/** Warns about the tools whose annotations some assistant directories require and lack. */
function lintAnnotations(compiled: readonly CompiledTool[], logger: ToolLogger): void {
  for (const { kind, spec } of compiled) {
    if (kind !== 'tool') continue;
    const { title, readOnlyHint, destructiveHint } = spec.annotations;
    const missing = [
      ...(title === undefined ? ['title'] : []),
      ...(readOnlyHint === undefined ? ['readOnlyHint'] : []),
      ...(readOnlyHint !== true && destructiveHint === undefined ? ['destructiveHint'] : []),
    ];
    if (missing.length === 0) continue;
    (logger.warn ?? logger.error).call(
      logger,
      `[toolwright] Tool "${spec.name}" (${spec.origin}) has no annotations.${missing.join(', annotations.')}: ` +
        'some assistant directories require them. Declare them in `annotations`.',
    );
  }
}
