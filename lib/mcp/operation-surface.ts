import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Server,
} from '@modelcontextprotocol/server';
import { catalogInvoker, type CatalogInvoker } from '../core/catalog-invoker.js';
import { isProgrammingError, ToolError } from '../core/errors.js';
import { drive, isThenable } from '../core/maybe-async.js';
import type { CallerSignal } from '../core/handler-wait.js';
import type { ToolLogger } from '../core/hooks.js';
import type { InvokeOptions, ToolInvoker } from '../core/invoker.js';
import type { OperationDescriptor, ResourceRead } from '../core/operations.js';
import type { ToolFailure, ToolResult } from '../core/result.js';
import type { ToolContext } from '../core/types.js';
import { MAX_TEMPLATE_URI_LENGTH } from '../core/uri-template.js';

/** The listing entries of a surface's resources, templates and prompts, prepared once. */
interface Listings {
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /** Each descriptor's entry, to filter the lists by what a caller may see. */
  readonly entries: ReadonlyMap<OperationDescriptor, Resource | ResourceTemplate | Prompt>;
}

/** What a request's handlers need from the tool surface: the invoker, the call's context. */
export interface OperationSurfaceSettings {
  readonly invoker: ToolInvoker;
  readonly logger: ToolLogger;
  readonly context: () => ToolContext | undefined | Promise<ToolContext | undefined>;
}

/**
 * The application's resources, resource templates, prompts and completions over MCP: lists
 * prepared once (filtered per caller only when something requires scopes or has `canList`),
 * `resources/read` and `prompts/get` through the canonical runner (`transport: 'MCP'`,
 * `source: 'mcp'`), and `completion/complete` from the declarations' `complete`. Capabilities
 * are declared only for what the application has. A stateless endpoint pushes nothing, so
 * `subscribe` and `listChanged` are `false`; a 2025-era `resources/subscribe` is acknowledged
 * and changes nothing.
 */
export class McpOperationSurface {
  private readonly listings: Listings;
  private readonly filters: Readonly<Record<'resource' | 'prompt', boolean>>;
  /** Resource templates by their template, for `completion/complete` references. */
  private readonly templateNames: ReadonlyMap<string, string>;
  /** The capabilities the declarations call for (merged into the server's). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly hasResources: boolean;
  readonly hasPrompts: boolean;
  private readonly completes: boolean;
  private readonly invoker: CatalogInvoker;

  constructor(private readonly settings: OperationSurfaceSettings) {
    const invoker = catalogInvoker(settings.invoker);
    const { catalog } = invoker;
    this.invoker = invoker;
    const resources = catalog.descriptors('MCP', 'resource');
    const prompts = catalog.descriptors('MCP', 'prompt');
    const entries = new Map<OperationDescriptor, Resource | ResourceTemplate | Prompt>();
    const resourceList: Resource[] = [];
    const templateList: ResourceTemplate[] = [];
    const templateNames = new Map<string, string>();
    for (const descriptor of resources) {
      const entry = listingEntry(descriptor);
      entries.set(descriptor, entry);
      if (descriptor.kind === 'resource' && descriptor.uriTemplate !== undefined) {
        templateList.push(entry as ResourceTemplate);
        templateNames.set(descriptor.uriTemplate, descriptor.name);
      } else {
        resourceList.push(entry as Resource);
      }
    }
    const promptList = prompts.map((descriptor) => {
      const entry = listingEntry(descriptor) as Prompt;
      entries.set(descriptor, entry);
      return entry;
    });
    this.listings = Object.freeze({
      resources: Object.freeze(resourceList),
      templates: Object.freeze(templateList),
      prompts: Object.freeze(promptList),
      entries,
    });
    this.templateNames = templateNames;
    this.hasResources = resources.length > 0;
    this.hasPrompts = prompts.length > 0;
    // The completions capability is declared only when some declaration suggests values.
    this.completes = [
      ...catalog.operations('MCP', 'resource'),
      ...catalog.operations('MCP', 'prompt'),
    ].some(({ completers }) => completers !== undefined && Object.keys(completers).length > 0);
    this.filters = Object.freeze({
      resource: catalog.filtersListing('MCP', 'resource'),
      prompt: catalog.filtersListing('MCP', 'prompt'),
    });
    this.capabilities = Object.freeze({
      ...(this.hasResources && { resources: { subscribe: false, listChanged: false } }),
      ...(this.hasPrompts && { prompts: { listChanged: false } }),
      ...(this.completes && { completions: {} }),
    });
  }

  /** Registers the handlers of what the application declares on a request's server. */
  register(server: Server, era: 'modern' | 'legacy', traceContext: (id: unknown) => unknown): void {
    if (this.hasResources) {
      server.setRequestHandler('resources/list', async () => ({
        resources: [...(await this.list('resource', this.listings.resources))],
      }));
      server.setRequestHandler('resources/templates/list', async () => ({
        resourceTemplates: [...(await this.list('resource', this.listings.templates))],
      }));
      server.setRequestHandler(
        'resources/read',
        async (request, ctx) =>
          this.read(request.params.uri, ctx.mcpReq.signal, traceContext(ctx.mcpReq.id)) as never,
      );
      if (era === 'legacy') {
        server.setRequestHandler('resources/subscribe', () => ({}));
        server.setRequestHandler('resources/unsubscribe', () => ({}));
      }
    }
    if (this.hasPrompts) {
      server.setRequestHandler('prompts/list', async () => ({
        prompts: [...(await this.list('prompt', this.listings.prompts))],
      }));
      server.setRequestHandler('prompts/get', async (request, ctx) => {
        const { name, arguments: args } = request.params;
        const prompt = await this.run(
          ctx.mcpReq.signal,
          traceContext(ctx.mcpReq.id),
          (options) => this.invoker.getPrompt(name, args ?? {}, options),
          // The invoker's words: the closest prompt names.
          (missing) => new ProtocolError(ProtocolErrorCode.InvalidParams, missing.message),
        );
        if (!prompt.ok) throw protocolError(prompt.error);
        return prompt.data as never;
      });
    }
    if (this.completes) {
      server.setRequestHandler('completion/complete', async (request) => {
        const { ref, argument, context } = request.params;
        const name =
          ref.type === 'ref/prompt'
            ? ref.name
            : this.templateNames.get((ref as { uri: string }).uri);
        if (name === undefined) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `No resource template "${(ref as { uri?: string }).uri}".`,
          );
        }
        const values = await this.invoker.complete(name, argument, {
          transport: 'MCP',
          context: await this.settings.context(),
          ...(context?.arguments && { arguments: context.arguments }),
        });
        return { completion: { values: [...values], total: values.length, hasMore: false } };
      });
    }
  }

  /**
   * A list every caller sees whole, as prepared (the same frozen array each time), or `undefined`
   * when the list depends on the caller or the server does not declare it.
   */
  sharedList(method: string): readonly object[] | undefined {
    switch (method) {
      case 'resources/list':
        return this.hasResources && !this.filters.resource ? this.listings.resources : undefined;
      case 'resources/templates/list':
        return this.hasResources && !this.filters.resource ? this.listings.templates : undefined;
      case 'prompts/list':
        return this.hasPrompts && !this.filters.prompt ? this.listings.prompts : undefined;
      default:
        return undefined;
    }
  }

  /**
   * Reads a resource for a `resources/read` (on the SDK's server or the endpoint's direct path):
   * the result, or the JSON-RPC error the SDK sends for it (thrown, or the promise rejected).
   * Answered at once when nothing on the way was asynchronous.
   */
  read(
    uri: string,
    signal: CallerSignal,
    traceContext: unknown,
  ): { contents: object[] } | Promise<{ contents: object[] }> {
    return drive(this.reading(uri, signal, traceContext));
  }

  private *reading(
    uri: string,
    signal: CallerSignal,
    traceContext: unknown,
  ): Generator<unknown, { contents: object[] }, unknown> {
    let read: ToolResult<ResourceRead>;
    try {
      let context = this.settings.context();
      if (isThenable(context)) context = (yield context) as ToolContext | undefined;
      const reading = this.invoker.read(uri, {
        transport: 'MCP',
        source: 'mcp',
        context,
        signal,
        traceContext,
      });
      if (reading === undefined) throw resourceNotFound(uri);
      read = isThenable(reading) ? ((yield reading) as ToolResult<ResourceRead>) : reading;
    } catch (error) {
      throw this.refusal(error, () => resourceNotFound(uri));
    }
    if (!read.ok) throw protocolError(read.error, uri);
    return { contents: read.data.contents };
  }

  /** An era's list of one kind, filtered for the caller when something requires it. */
  private async list<T extends Resource | ResourceTemplate | Prompt>(
    kind: 'resource' | 'prompt',
    all: readonly T[],
  ): Promise<readonly T[]> {
    if (!this.filters[kind]) return all;
    const visible = await this.invoker.visibleOperations('MCP', kind, {
      context: await this.settings.context(),
    });
    const shown = new Set(visible.map((descriptor) => this.listings.entries.get(descriptor)));
    return all.filter((entry) => shown.has(entry));
  }

  /**
   * Runs a get with the request's context, signal and trace; nothing of that name answers the
   * `missing` error.
   */
  private async run<T>(
    signal: AbortSignal,
    traceContext: unknown,
    start: (options: InvokeOptions) => Promise<ToolResult<T>>,
    missing: (error: ToolError) => ProtocolError,
  ): Promise<ToolResult<T>> {
    try {
      let context = this.settings.context();
      if (isThenable(context)) context = await context;
      return await start({ transport: 'MCP', source: 'mcp', context, signal, traceContext });
    } catch (error) {
      throw this.refusal(error, missing);
    }
  }

  /**
   * The JSON-RPC error for what a read or get threw before its call could answer. A programming
   * error of the application (a name its context resolver got wrong) is an internal error.
   */
  private refusal(error: unknown, missing: (error: ToolError) => ProtocolError): ProtocolError {
    if (error instanceof ProtocolError) return error;
    if (ToolError.is(error) && !isProgrammingError(error)) {
      return error.code === 'NOT_FOUND' ? missing(error) : protocolError(error);
    }
    this.settings.logger.error('[toolwright] MCP request failed:', error);
    return new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
  }
}

/**
 * A failed read or get as a JSON-RPC error (these methods have no `isError` result): invalid
 * arguments `-32602`, a resource the handler did not find `-32602` with its URI (as the SDK
 * answers a missing resource), anything else `-32603`; the public message and the envelope's
 * fields in `data`.
 */
function protocolError(failure: ToolFailure | ToolError, uri?: string): ProtocolError {
  const { code, message, retryable, hint } = failure;
  if (code === 'NOT_FOUND' && uri !== undefined) return resourceNotFound(uri);
  const data = { error: code, retryable, ...(hint !== undefined && { hint }) };
  return new ProtocolError(
    code === 'VALIDATION_ERROR' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
    message,
    data,
  );
}

/**
 * The SDK's answer to a URI nothing serves (`-32602`, the URI in its message and data). A URI
 * longer than any template matches is answered alike without being repeated back.
 */
function resourceNotFound(uri: string): ProtocolError {
  if (uri.length <= MAX_TEMPLATE_URI_LENGTH) return new ResourceNotFoundError(uri);
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Resource not found: the URI is longer than ${MAX_TEMPLATE_URI_LENGTH} characters.`,
  );
}

/** The MCP listing entry of a descriptor: only the fields MCP lists. */
function listingEntry(descriptor: OperationDescriptor): Resource | ResourceTemplate | Prompt {
  const shared = {
    name: descriptor.name,
    ...(descriptor.title !== undefined && { title: descriptor.title }),
    description: descriptor.description,
    ...(descriptor.icons !== undefined && { icons: descriptor.icons as never }),
    ...(descriptor._meta !== undefined && { _meta: descriptor._meta as Record<string, unknown> }),
  };
  if (descriptor.kind === 'prompt') {
    return Object.freeze({
      ...shared,
      ...(descriptor.arguments.length > 0 && { arguments: descriptor.arguments as never }),
    });
  }
  const mime = descriptor.mimeType !== undefined ? { mimeType: descriptor.mimeType } : {};
  return Object.freeze(
    descriptor.uriTemplate !== undefined
      ? { uriTemplate: descriptor.uriTemplate, ...shared, ...mime }
      : { uri: descriptor.uri!, ...shared, ...mime },
  );
}
