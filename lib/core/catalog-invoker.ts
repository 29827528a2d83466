import { resolveCallContext } from './ambient-context.js';
import { ToolCatalog } from './catalog.js';
import type { Drain } from './drain.js';
import { asProgrammingError, ToolError } from './errors.js';
import type { CallerSignal } from './handler-wait.js';
import type { ToolLogger } from './hooks.js';
import type { InvokeOptions, ToolInvoker } from './invoker.js';
import { isListable } from './listing.js';
import { unknownToolMessage } from './naming.js';
import type { OperationDescriptor, PromptGet, ResourceRead } from './operations.js';
import { toToolError, type ToolResult } from './result.js';
import { runTool, type CallRequest, type CompiledTool, type RunnerSettings } from './runner.js';
import type { ToolTelemetry } from './telemetry.js';
import type { ToolContext, ToolSource, ToolTransport } from './types.js';

/** The options of {@link CatalogInvoker.run}: those of `invoke`, with any caller signal. */
export type RunOptions = Omit<InvokeOptions, 'signal'> & { readonly signal?: CallerSignal };

/**
 * An invoker with its catalog: what the library's surface adapters (MCP, agents) work from.
 * `createToolInvoker` answers one, and so does the Nest `ToolInvoker` once initialised; neither
 * says so in its public type (see {@link catalogInvoker}).
 */
export interface CatalogInvoker extends ToolInvoker {
  /** The compiled tools, resources and prompts, per transport. */
  readonly catalog: ToolCatalog;
  /**
   * Runs a call of one of the catalog's compiled tools as `invoke` runs a call of a name, but
   * answers at once when nothing on the way was asynchronous (`invoke` always answers a promise).
   */
  run(tool: CompiledTool, args: unknown, options: RunOptions): ToolResult | Promise<ToolResult>;
  /**
   * Reads a resource as `readResource` does, answering at once when nothing on the way was
   * asynchronous; `undefined` when no resource or template on the transport serves the URI.
   */
  read(
    uri: string,
    options: RunOptions,
  ): ToolResult<ResourceRead> | Promise<ToolResult<ResourceRead>> | undefined;
  /**
   * The raw context a call made now would see: the ambient context of the current request with
   * `explicit` merged over it.
   */
  context(explicit: ToolContext | undefined): ToolContext | Promise<ToolContext>;
  /** The invoker's telemetry, which the MCP endpoint's request spans follow. */
  readonly telemetry?: ToolTelemetry;
}

/**
 * The invoker an adapter was handed, with its catalog; throws for anything that is not a
 * toolwright invoker (a Nest `ToolInvoker` not yet initialised throws its own message).
 */
export function catalogInvoker(invoker: ToolInvoker): CatalogInvoker {
  if (!((invoker as Partial<CatalogInvoker> | undefined)?.catalog instanceof ToolCatalog)) {
    throw new TypeError(
      'Expected a toolwright invoker (createToolInvoker, or the ToolInvoker of an initialised ToolsModule).',
    );
  }
  return invoker as CatalogInvoker;
}

/** The settings every call of an invoker runs with, its drain among them. */
export type InvokerSettings = RunnerSettings & { readonly drain: Drain };

/** Runs a compiled tool; `uri` is the URI a resource read reads. */
type Start = (
  tool: CompiledTool,
  args: unknown,
  options: RunOptions,
  uri?: string,
) => ToolResult | Promise<ToolResult>;

type ResolveContext = CatalogInvoker['context'];

/** The invoker of a catalog: the public methods, and what the surface adapters reach. */
export function invokerOf(catalog: ToolCatalog, settings: InvokerSettings): CatalogInvoker {
  const start: Start = (tool, args, options, uri) =>
    runTool(tool, callRequest(args, options, uri), settings);
  const context: ResolveContext = (explicit) =>
    resolveCallContext(settings.resolveContext, explicit);
  return Object.freeze({
    ...calls(catalog, start),
    ...listings(catalog, context),
    complete: completions(catalog, context, settings.logger),
    close: (closeOptions?: { graceMs?: number }) =>
      settings.drain.close(closeOptions?.graceMs ?? 10_000),
    catalog,
    run: start,
    read: (uri: string, options: RunOptions) => {
      const match = catalog.resource(uri, options.transport);
      return (
        match &&
        (start(match.tool, match.variables, options, uri) as
          ToolResult<ResourceRead> | Promise<ToolResult<ResourceRead>>)
      );
    },
    context,
    telemetry: settings.telemetry,
  });
}

function callRequest(args: unknown, options: RunOptions, uri?: string): CallRequest {
  return {
    transport: options.transport,
    source: options.source ?? 'internal',
    args,
    context: options.context,
    signal: options.signal,
    onProgress: options.onProgress,
    onLog: options.onLog,
    present: options.present,
    toolCallId: options.toolCallId,
    traceContext: options.traceContext,
    ask: options.ask,
    ...(uri !== undefined && { uri }),
  };
}

/** The calls by name or URI: every rejection, an unknown name's too, is the promise's. */
function calls(
  catalog: ToolCatalog,
  start: Start,
): Pick<ToolInvoker, 'invoke' | 'invokeOrThrow' | 'readResource' | 'getPrompt'> {
  const invoke = <T>(name: string, args: unknown, options: InvokeOptions) => {
    try {
      const tool = catalog.tool(name, options?.transport);
      const source = options.source ?? 'internal';
      if (!tool) {
        throw unknownTool(
          String(name),
          catalog.names(options.transport),
          options.transport,
          source,
        );
      }
      return Promise.resolve(start(tool, args, options) as ToolResult<T>);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    invoke,
    async invokeOrThrow<T>(name: string, args: unknown, options: InvokeOptions): Promise<T> {
      const result = await invoke<T>(name, args, options);
      if (result.ok) return result.data;
      throw toToolError(result.error);
    },
    readResource(uri: string, options: InvokeOptions) {
      try {
        const match = catalog.resource(uri, options?.transport);
        if (!match) {
          throw unknownResource(String(uri), options.transport, options.source ?? 'internal');
        }
        const read = start(match.tool, match.variables, options, uri);
        return Promise.resolve(read as ToolResult<ResourceRead>);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    getPrompt(name: string, args: unknown, options: InvokeOptions) {
      try {
        const prompt = catalog.prompt(name, options?.transport);
        const source = options.source ?? 'internal';
        if (!prompt) {
          const prompts = catalog.operations(options.transport, 'prompt');
          const names = prompts.map((tool) => tool.spec.name).sort();
          throw unknownTool(String(name), names, options.transport, source, 'prompt');
        }
        return Promise.resolve(start(prompt, args, options) as ToolResult<PromptGet>);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** What a transport lists, whole or as a caller may see it. */
function listings(
  catalog: ToolCatalog,
  context: ResolveContext,
): Pick<
  ToolInvoker,
  'names' | 'manifest' | 'find' | 'visible' | 'operations' | 'visibleOperations'
> {
  return {
    names: (transport: ToolTransport) => catalog.names(transport),
    manifest: (transport: ToolTransport) => catalog.manifest(transport),
    find: (name: string, transport: ToolTransport) => catalog.find(name, transport),
    async visible(transport: ToolTransport, options?: { context?: ToolContext }) {
      const manifest = catalog.manifest(transport);
      if (!catalog.filtersListing(transport)) return manifest;
      const resolved = await context(options?.context);
      const tools = catalog.tools(transport);
      const listed = await Promise.all(tools.map((tool) => isListable(tool, resolved)));
      return Object.freeze(manifest.filter((_, index) => listed[index]));
    },
    operations: (transport: ToolTransport, kind: 'resource' | 'prompt') =>
      catalog.descriptors(transport, kind),
    async visibleOperations(
      transport: ToolTransport,
      kind: 'resource' | 'prompt',
      options?: { context?: ToolContext },
    ): Promise<readonly OperationDescriptor[]> {
      const descriptors = catalog.descriptors(transport, kind);
      if (!catalog.filtersListing(transport, kind)) return descriptors;
      const resolved = await context(options?.context);
      const tools = catalog.operations(transport, kind);
      const listed = await Promise.all(tools.map((tool) => isListable(tool, resolved)));
      return Object.freeze(descriptors.filter((_, index) => listed[index]));
    },
  };
}

/** `complete`: a declaration's suggestions, for a caller who may see it. */
function completions(
  catalog: ToolCatalog,
  context: ResolveContext,
  logger: ToolLogger,
): ToolInvoker['complete'] {
  return async (name, argument, options) => {
    const tool = catalog.operation(name, options?.transport);
    const completers = tool?.completers;
    const completer =
      completers && Object.hasOwn(completers, argument?.name) && completers[argument.name];
    if (!tool || !completer) return [];
    const resolved = await context(options.context);
    if (!(await isListable(tool, resolved))) return [];
    try {
      const values = await completer(String(argument.value ?? ''), {
        context: resolved,
        arguments: options.arguments ?? {},
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
  };
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
