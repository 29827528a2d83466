import { parserOf } from './schema-parse.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import type { ToolGuard } from './hooks.js';
import { listsPerCaller } from './listing.js';
import { describeTool, type ToolDescriptor } from './manifest.js';
import {
  describeOperation,
  type Completer,
  type OperationDescriptor,
  type OperationSpec,
  type ResourceContents,
  type ResourceRead,
} from './operations.js';
import { resolveTools, type ToolCollection, type ToolDefinition } from './registry.js';
import type { CompiledTool } from './runner.js';
import { assertToolSpec, type ToolCall, type ToolSpec } from './runtime-tool.js';
import type { ClassTool } from './tool-class.js';
import {
  TOOL_TRANSPORTS,
  type ToolCallInfo,
  type ToolOperation,
  type ToolTransport,
} from './types.js';
import type { UriTemplate, UriVariables } from './uri-template.js';

/** How a class tool runs: its handler and its guards, bound by whoever owns the instances. */
export interface BoundClassTool {
  readonly handler: (call: ToolCall<any, any>) => unknown;
  readonly guards?: readonly ToolGuard[];
  /** The class's methods named as completers (`complete: { slug: 'slugs' }`), bound. */
  readonly methods?: (name: string) => Completer;
}

/** Binds class tools to instances. The Nest layer binds them to the container's instances. */
export type ClassToolBinder = (tool: ClassTool) => BoundClassTool;

/** How a collection is compiled into a {@link ToolCatalog}. */
export interface ToolCatalogOptions {
  /** Guards for every call, before each tool's own. */
  readonly guards?: readonly ToolGuard[];
  /** Binds class tools; by default each class is instantiated once with `new`. */
  readonly bind?: ClassToolBinder;
}

/** The kinds a catalog lists beside its tools. */
export type OperationKind = 'resource' | 'prompt';

/** The resource that serves a URI, and the template variables read from the URI (none for a fixed URI). */
export interface ResourceMatch {
  readonly tool: CompiledTool;
  readonly variables: UriVariables;
}

/** What one transport exposes, looked up by name and URI. */
interface Surface {
  readonly tools: readonly CompiledTool[];
  readonly byName: ReadonlyMap<string, CompiledTool>;
  readonly names: readonly string[];
  readonly manifest: readonly ToolDescriptor[];
  /** Whether the listing of each kind depends on the caller (see `listsPerCaller`). */
  readonly filters: Readonly<Record<ToolOperation, boolean>>;
  /** The resources, templates and prompts, by name. */
  readonly operationsByName: ReadonlyMap<string, CompiledTool>;
  readonly operations: Readonly<Record<OperationKind, readonly CompiledTool[]>>;
  readonly descriptors: Readonly<Record<OperationKind, readonly OperationDescriptor[]>>;
  /** The resources of a fixed URI, by URI. */
  readonly resourcesByUri: ReadonlyMap<string, CompiledTool>;
  /** The resource templates, in declaration order (the first that matches a URI serves it). */
  readonly templates: readonly CompiledTool[];
}

/**
 * The tools, resources and prompts of a collection, compiled once (each bound to its handler and
 * every guard that applies to it) and laid out per transport: what each transport exposes, by
 * name and by URI. Immutable. A compiled tool carries its handler, a way around the runner, so the
 * catalog stays out of the public types: it is for the library's surface adapters.
 */
export class ToolCatalog {
  /** Every compiled tool, resource and prompt, in declaration order. */
  readonly compiled: readonly CompiledTool[];
  private readonly surfaces: ReadonlyMap<ToolTransport, Surface>;

  constructor(collection: ToolCollection, options: ToolCatalogOptions = {}) {
    const definitions = resolveTools(collection);
    const bind = options.bind ?? defaultBinder();
    const guards = Object.freeze([...(options.guards ?? [])]);
    this.compiled = Object.freeze(
      definitions.map((definition) => compileTool(definition, guards, bind)),
    );
    this.surfaces = new Map(
      TOOL_TRANSPORTS.map((transport) => [transport, surfaceOf(this.compiled, transport)]),
    );
    Object.freeze(this);
  }

  /** The tool names exposed on a transport: sorted, frozen. */
  names(transport: ToolTransport): readonly string[] {
    return this.surface(transport).names;
  }

  /** The descriptors of the tools exposed on a transport, in declaration order: frozen. */
  manifest(transport: ToolTransport): readonly ToolDescriptor[] {
    return this.surface(transport).manifest;
  }

  /** The compiled tools exposed on a transport, in declaration order (the manifest's order). */
  tools(transport: ToolTransport): readonly CompiledTool[] {
    return this.surface(transport).tools;
  }

  /** The descriptor of the tool exposed under a name on a transport. */
  find(name: string, transport: ToolTransport): ToolDescriptor | undefined {
    return this.surface(transport).byName.get(name)?.descriptor;
  }

  /** The compiled tool exposed under a name on a transport. */
  tool(name: string, transport: ToolTransport): CompiledTool | undefined {
    return this.surface(transport).byName.get(name);
  }

  /**
   * Whether the listing of a kind on a transport depends on the caller: something listed there
   * requires scopes or has a guard with `canList`. When it is `false`, every caller sees it all.
   */
  filtersListing(transport: ToolTransport, kind: ToolOperation = 'tool'): boolean {
    return this.surface(transport).filters[kind];
  }

  /**
   * The resource that serves a URI on a transport: the resource of that URI, else the first
   * template that matches it, with the variables it reads.
   */
  resource(uri: string, transport: ToolTransport): ResourceMatch | undefined {
    const { resourcesByUri, templates } = this.surface(transport);
    const resource = resourcesByUri.get(uri);
    if (resource) return { tool: resource, variables: {} };
    if (typeof uri !== 'string') return undefined;
    for (const template of templates) {
      const { uriTemplate } = operationOf(template) as { uriTemplate: UriTemplate };
      const variables = uriTemplate.match(uri);
      if (variables) return { tool: template, variables };
    }
    return undefined;
  }

  /** The compiled prompt of a name on a transport. */
  prompt(name: string, transport: ToolTransport): CompiledTool | undefined {
    const found = this.surface(transport).operationsByName.get(name);
    return found?.kind === 'prompt' ? found : undefined;
  }

  /** The compiled resource, resource template or prompt of a name on a transport. */
  operation(name: string, transport: ToolTransport): CompiledTool | undefined {
    return this.surface(transport).operationsByName.get(name);
  }

  /** The compiled resources (with the templates) or prompts on a transport, in declaration order. */
  operations(transport: ToolTransport, kind: OperationKind): readonly CompiledTool[] {
    return this.surface(transport).operations[kind];
  }

  /** The descriptors of {@link operations}, in the same order: frozen. */
  descriptors(transport: ToolTransport, kind: OperationKind): readonly OperationDescriptor[] {
    return this.surface(transport).descriptors[kind];
  }

  private surface(transport: unknown): Surface {
    assertTransport(transport);
    return this.surfaces.get(transport)!;
  }
}

/** What a compiled resource or prompt declares beyond a tool. */
function operationOf(tool: CompiledTool): OperationSpec {
  return tool.spec.operation!;
}

function assertTransport(transport: unknown): asserts transport is ToolTransport {
  if (!TOOL_TRANSPORTS.includes(transport as ToolTransport)) {
    throw new TypeError(
      `A call needs { transport } set to one of ${TOOL_TRANSPORTS.join(', ')}; got ${JSON.stringify(transport)}.`,
    );
  }
}

function surfaceOf(compiled: readonly CompiledTool[], transport: ToolTransport): Surface {
  const onTransport = compiled.filter((tool) => tool.spec.transports.includes(transport));
  const exposed = onTransport.filter((tool) => tool.kind === 'tool');
  const resources = onTransport.filter((tool) => tool.kind === 'resource');
  const prompts = onTransport.filter((tool) => tool.kind === 'prompt');
  const describe = (tools: readonly CompiledTool[]) =>
    Object.freeze(tools.map((tool) => tool.descriptor as OperationDescriptor));
  return Object.freeze({
    tools: Object.freeze(exposed),
    byName: new Map(exposed.map((tool) => [tool.spec.name, tool])),
    names: Object.freeze(exposed.map((tool) => tool.spec.name).sort()),
    manifest: Object.freeze(exposed.map((tool) => tool.descriptor)),
    filters: Object.freeze({
      tool: exposed.some(listsPerCaller),
      resource: resources.some(listsPerCaller),
      prompt: prompts.some(listsPerCaller),
    }),
    operationsByName: new Map([...resources, ...prompts].map((tool) => [tool.spec.name, tool])),
    operations: Object.freeze({
      resource: Object.freeze(resources),
      prompt: Object.freeze(prompts),
    }),
    descriptors: Object.freeze({ resource: describe(resources), prompt: describe(prompts) }),
    resourcesByUri: byUri(resources),
    templates: Object.freeze(
      resources.filter((tool) => (operationOf(tool) as { uriTemplate?: unknown }).uriTemplate),
    ),
  });
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
        CORE_MESSAGES.noMethod(tool.name, tool.origin, tool.target.name, tool.methodName),
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
      CORE_MESSAGES.noBoundHandler(definition.name, definition.origin),
    );
  }
  const completers = definition.operation?.complete && bindCompleters(definition, bound);
  const owner = `Tool "${definition.name}" (${definition.origin})`;
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
    parse: Object.freeze({
      input: parserOf(definition.input, owner, 'input'),
      ...(definition.context && { context: parserOf(definition.context, owner, 'input') }),
      ...(definition.output && { output: parserOf(definition.output, owner, 'output') }),
    }),
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
        CORE_MESSAGES.completerNotMethod(
          definition.name,
          definition.origin,
          argument,
          completer,
          target?.name ?? 'its class',
        ),
      );
    }
    completers[argument] = bound.methods(completer);
  }
  return Object.freeze(completers);
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
        CORE_MESSAGES.sameUri(
          other.spec.name,
          other.spec.origin,
          tool.spec.name,
          tool.spec.origin,
          uri,
        ),
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
