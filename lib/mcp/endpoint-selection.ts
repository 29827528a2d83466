import type { CatalogInvoker } from '../core/catalog-invoker.js';
import { ToolCatalog, type OperationKind } from '../core/catalog.js';
import { asProgrammingError, ToolError, ToolsConfigurationError } from '../core/errors.js';
import type { ToolDescriptor } from '../core/manifest.js';
import { isListable, listsPerCaller } from '../core/listing.js';
import { unknownToolMessage } from '../core/naming.js';
import type { OperationDescriptor } from '../core/operations.js';
import type { CompiledTool } from '../core/runner.js';
import type { ClassTool } from '../core/tool-class.js';
import {
  TOOL_TRANSPORTS,
  type Class,
  type ToolContext,
  type ToolOperation,
  type ToolTransport,
} from '../core/types.js';
import { MCP_MESSAGES } from './mcp.messages.js';

/**
 * Which of the application's MCP tools, resources and prompts one endpoint serves. `include`,
 * `classes`, `services` and `tags` add up (none of them: everything); `exclude` then takes names
 * away. Every name, class, service and tag must exist on MCP, and the endpoint must serve something: the
 * endpoint refuses to start otherwise, naming the closest ones.
 */
export interface McpSelection {
  /** These tools, resources, resource templates and prompts, by name. */
  include?: readonly string[];
  /** Everything these `@ToolFactory` classes declare (their tools, resources and prompts). */
  classes?: readonly Class[];
  /** Everything declared under these service names (`serviceName` of a class or a runtime tool). */
  services?: readonly string[];
  /** Everything that carries one of these tags (`tags` of a tool, resource, prompt or class). */
  tags?: readonly string[];
  /** Not these names, whatever selected them. */
  exclude?: readonly string[];
}

/** What one transport serves of a selection. */
interface Narrowed {
  readonly tools: readonly CompiledTool[];
  readonly byName: ReadonlyMap<string, CompiledTool>;
  readonly names: readonly string[];
  readonly manifest: readonly ToolDescriptor[];
  readonly filters: Readonly<Record<ToolOperation, boolean>>;
  readonly operations: Readonly<Record<OperationKind, readonly CompiledTool[]>>;
  readonly descriptors: Readonly<Record<OperationKind, readonly OperationDescriptor[]>>;
  readonly operationsByName: ReadonlyMap<string, CompiledTool>;
}

/** The MCP tools, resources and prompts of a catalog, in declaration order. */
function onMcp(catalog: ToolCatalog): CompiledTool[] {
  return [
    ...catalog.tools('MCP'),
    ...catalog.operations('MCP', 'resource'),
    ...catalog.operations('MCP', 'prompt'),
  ];
}

/**
 * The compiled tools a selection names, refusing a name, class or service that MCP does not
 * expose (`where` names the option in the message), and a selection of nothing.
 */
export function selectedOperations(
  catalog: ToolCatalog,
  selection: McpSelection,
  where: string,
): ReadonlySet<CompiledTool> {
  const all = onMcp(catalog);
  const names = all.map((tool) => tool.spec.name).sort();
  for (const key of ['include', 'exclude'] as const) {
    for (const name of selection[key] ?? []) {
      if (!names.includes(name)) {
        throw new ToolsConfigurationError(
          MCP_MESSAGES.selectedName(where, key, unknownToolMessage(name, names)),
        );
      }
    }
  }
  const picked = new Set<CompiledTool>();
  const include = new Set(selection.include ?? []);
  for (const tool of all) if (include.has(tool.spec.name)) picked.add(tool);
  const classes = all.filter((tool) => (tool.spec as Partial<ClassTool>).target !== undefined);
  for (const target of selection.classes ?? []) {
    const declared = classes.filter((tool) => (tool.spec as ClassTool).target === target);
    if (declared.length === 0) {
      const known = [...new Set(classes.map((tool) => (tool.spec as ClassTool).target.name))];
      throw new ToolsConfigurationError(MCP_MESSAGES.selectedClass(where, target?.name, known));
    }
    for (const tool of declared) picked.add(tool);
  }
  const services = [...new Set(all.map((tool) => tool.spec.identity.serviceName))].sort();
  for (const service of selection.services ?? []) {
    if (!services.includes(service)) {
      throw new ToolsConfigurationError(MCP_MESSAGES.selectedService(where, service, services));
    }
    for (const tool of all) if (tool.spec.identity.serviceName === service) picked.add(tool);
  }
  const tags = [...new Set(all.flatMap((tool) => tool.spec.tags ?? []))].sort();
  for (const tag of selection.tags ?? []) {
    if (!tags.includes(tag)) {
      throw new ToolsConfigurationError(MCP_MESSAGES.selectedTag(where, tag, tags));
    }
    for (const tool of all) if (tool.spec.tags?.includes(tag)) picked.add(tool);
  }
  const adds = selection.include ?? selection.classes ?? selection.services ?? selection.tags;
  if (adds === undefined) for (const tool of all) picked.add(tool);
  const exclude = new Set(selection.exclude ?? []);
  for (const tool of picked) if (exclude.has(tool.spec.name)) picked.delete(tool);
  if (picked.size === 0) throw new ToolsConfigurationError(MCP_MESSAGES.selectedNothing(where));
  return picked;
}

function narrow(catalog: ToolCatalog, transport: ToolTransport, picked: ReadonlySet<CompiledTool>) {
  const tools = Object.freeze(catalog.tools(transport).filter((tool) => picked.has(tool)));
  const of = (kind: OperationKind) =>
    Object.freeze(catalog.operations(transport, kind).filter((tool) => picked.has(tool)));
  const operations = Object.freeze({ resource: of('resource'), prompt: of('prompt') });
  const describe = (list: readonly CompiledTool[]) =>
    Object.freeze(list.map((tool) => tool.descriptor as OperationDescriptor));
  return Object.freeze<Narrowed>({
    tools,
    byName: new Map(tools.map((tool) => [tool.spec.name, tool])),
    names: Object.freeze(tools.map((tool) => tool.spec.name).sort()),
    manifest: Object.freeze(tools.map((tool) => tool.descriptor)),
    filters: Object.freeze({
      tool: tools.some(listsPerCaller),
      resource: operations.resource.some(listsPerCaller),
      prompt: operations.prompt.some(listsPerCaller),
    }),
    operations,
    descriptors: Object.freeze({
      resource: describe(operations.resource),
      prompt: describe(operations.prompt),
    }),
    operationsByName: new Map(
      [...operations.resource, ...operations.prompt].map((tool) => [tool.spec.name, tool]),
    ),
  });
}

/**
 * A view of `catalog` that holds only `picked` (the same compiled tools, so calls run exactly as
 * they do through the whole catalog). A URI is served by the resource the whole catalog picks
 * for it, when that one is picked: a URI means the same thing on every endpoint.
 */
export function narrowedCatalog(
  catalog: ToolCatalog,
  picked: ReadonlySet<CompiledTool>,
): ToolCatalog {
  const views = new Map(TOOL_TRANSPORTS.map((t) => [t, narrow(catalog, t, picked)]));
  const view = (transport: ToolTransport): Narrowed => {
    // An unknown transport: the whole catalog refuses it in its own words.
    if (!views.has(transport)) catalog.names(transport);
    return views.get(transport)!;
  };
  const methods: Omit<ToolCatalog, never> = {
    compiled: Object.freeze(catalog.compiled.filter((tool) => picked.has(tool))),
    names: (transport) => view(transport).names,
    manifest: (transport) => view(transport).manifest,
    tools: (transport) => view(transport).tools,
    find: (name, transport) => view(transport).byName.get(name)?.descriptor,
    tool: (name, transport) => view(transport).byName.get(name),
    filtersListing: (transport, kind = 'tool') => view(transport).filters[kind],
    resource: (uri, transport) => {
      view(transport);
      const match = catalog.resource(uri, transport);
      return match && picked.has(match.tool) ? match : undefined;
    },
    prompt: (name, transport) => {
      const found = view(transport).operationsByName.get(name);
      return found?.kind === 'prompt' ? found : undefined;
    },
    operation: (name, transport) => view(transport).operationsByName.get(name),
    operations: (transport, kind) => view(transport).operations[kind],
    descriptors: (transport, kind) => view(transport).descriptors[kind],
  };
  const narrowed: ToolCatalog = Object.assign(Object.create(ToolCatalog.prototype), methods);
  Object.freeze(narrowed);
  return narrowed;
}

/** A `NOT_FOUND` for a name (or URI) the endpoint does not serve, as the invoker words it. */
function notServed(message: string, details: Record<string, unknown>, source = 'internal') {
  const error = new ToolError('NOT_FOUND', { message, details });
  return Promise.reject(source === 'internal' ? asProgrammingError(error) : error);
}

type InvokeOptions = Parameters<CatalogInvoker['invoke']>[2];

/** The calls by name or URI of a narrowed invoker: `invoker`'s, for what `catalog` holds. */
function callsOf(
  invoker: CatalogInvoker,
  catalog: ToolCatalog,
): Pick<CatalogInvoker, 'invoke' | 'invokeOrThrow' | 'readResource' | 'getPrompt'> {
  const unknownTool = (name: string, options: InvokeOptions) =>
    notServed(
      unknownToolMessage(String(name), catalog.names(options.transport)),
      { name, transport: options.transport },
      options.source,
    );
  return {
    invoke: <T>(name: string, args: unknown, options: InvokeOptions) =>
      catalog.tool(name, options?.transport)
        ? invoker.invoke<T>(name, args, options)
        : unknownTool(name, options),
    invokeOrThrow: <T>(name: string, args: unknown, options: InvokeOptions) =>
      catalog.tool(name, options?.transport)
        ? invoker.invokeOrThrow<T>(name, args, options)
        : unknownTool(name, options),
    readResource: (uri, options) =>
      catalog.resource(uri, options?.transport)
        ? invoker.readResource(uri, options)
        : notServed(
            `No resource at "${uri}".`,
            { uri, transport: options.transport },
            options.source,
          ),
    getPrompt: (name, args, options) => {
      if (catalog.prompt(name, options?.transport)) return invoker.getPrompt(name, args, options);
      const prompts = catalog.descriptors(options.transport, 'prompt').map((d) => d.name);
      return notServed(
        unknownToolMessage(String(name), prompts.sort(), 'prompt'),
        { name, transport: options.transport },
        options.source,
      );
    },
  };
}

/**
 * The invoker one endpoint serves: `invoker`'s runner, context, telemetry and drain (one runner
 * for every endpoint), over the selected part of its catalog. The application's own invoker still
 * sees every tool.
 */
export function selectedInvoker(
  invoker: CatalogInvoker,
  selection: McpSelection,
  where: string,
): CatalogInvoker {
  const catalog = narrowedCatalog(
    invoker.catalog,
    selectedOperations(invoker.catalog, selection, where),
  );
  const visibleOf = async <T>(
    tools: readonly CompiledTool[],
    descriptors: readonly T[],
    context: ToolContext | undefined,
  ): Promise<readonly T[]> => {
    const resolved = await invoker.context(context);
    const listed = await Promise.all(tools.map((tool) => isListable(tool, resolved)));
    return Object.freeze(descriptors.filter((_, index) => listed[index]));
  };
  return Object.freeze<CatalogInvoker>({
    catalog,
    telemetry: invoker.telemetry,
    run: (tool, args, options) => invoker.run(tool, args, options),
    read: (uri, options) =>
      catalog.resource(uri, options.transport) ? invoker.read(uri, options) : undefined,
    context: (explicit) => invoker.context(explicit),
    close: (options) => invoker.close(options),
    ...callsOf(invoker, catalog),
    names: (transport) => catalog.names(transport),
    manifest: (transport) => catalog.manifest(transport),
    find: (name, transport) => catalog.find(name, transport),
    operations: (transport, kind) => catalog.descriptors(transport, kind),
    visible: (transport, options) =>
      catalog.filtersListing(transport)
        ? visibleOf(catalog.tools(transport), catalog.manifest(transport), options?.context)
        : Promise.resolve(catalog.manifest(transport)),
    visibleOperations: (transport, kind, options) =>
      catalog.filtersListing(transport, kind)
        ? visibleOf(
            catalog.operations(transport, kind),
            catalog.descriptors(transport, kind),
            options?.context,
          )
        : Promise.resolve(catalog.descriptors(transport, kind)),
    complete: (name, argument, options) =>
      catalog.operation(name, options?.transport)
        ? invoker.complete(name, argument, options)
        : Promise.resolve(Object.freeze([])),
  });
}
