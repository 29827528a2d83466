import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type LoggingLevel,
  type McpServerFactory,
  type Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { catalogInvoker, type CatalogInvoker } from '../core/catalog-invoker.js';
import { drive, isThenable } from '../core/maybe-async.js';
import type { CallerSignal } from '../core/handler-wait.js';
import { isProgrammingError, normalizeError, ToolError } from '../core/errors.js';
import type { ToolLogger } from '../core/hooks.js';
import type { ToolInvoker } from '../core/invoker.js';
import type { ToolDescriptor } from '../core/manifest.js';
import { PRINCIPAL_KEY, type ToolPrincipal } from '../core/principal.js';
import { unknownToolMessage } from '../core/naming.js';
import { toFailure, type ToolResult } from '../core/result.js';
import type { CompiledTool } from '../core/runner.js';
import type { ToolContext } from '../core/types.js';
import { adviseOnce, type ToolAsk } from '../core/asking.js';
import type { InstanceBus } from '../core/instance-bus.js';
import type { ToolTelemetry } from '../core/telemetry.js';
import { identityKey } from '../core/caller-identity.js';
import { internalErrorResult, toCallToolResult } from './call-tool-result.js';
import { logSink, pendingNotifications, progressSink } from './call-notifications.js';
import type { ResolvedMcpEndpointOptions } from './endpoint-options.js';
import { McpTransportSpans, type McpCatalog, type McpNetworkSource } from './telemetry.js';
import { McpOperationSurface } from './operation-surface.js';
import type { McpTasks } from './tasks.js';
import { SurfaceServer } from './sdk-workarounds.js';
import { toMcpTool } from './tool-entry.js';
import { refusePublicCallerLists, sdkCacheHints } from './cache-hints.js';
import type { Era, McpEra, McpEraSettings, McpToolCallParams } from './eras/era.js';
import { legacyEra, type LegacyEra } from './eras/2025-11-25/index.js';
import type { LegacyElicitation } from './eras/2025-11-25/asking.js';
import { MCP_MESSAGES } from './mcp.messages.js';
import type { Abortable, CancellableCalls } from './eras/2025-11-25/cancellation.js';
import { modernEra } from './eras/2026-07-28/index.js';

/** Options of {@link McpToolSurface}. */
export interface McpServerFactoryOptions {
  readonly invoker: ToolInvoker;
  readonly options: Pick<
    ResolvedMcpEndpointOptions,
    'serverInfo' | 'instructions' | 'requestState'
  > &
    Partial<Pick<ResolvedMcpEndpointOptions, 'auth' | 'cacheHints'>>;
  readonly logger: ToolLogger;
  /**
   * The explicit context of every call and listing, merged over the invoker's ambient one: fixed
   * (stdio), or read per request (a handler that resolved it from the HTTP request).
   */
  readonly context?:
    ToolContext | (() => ToolContext | undefined | Promise<ToolContext | undefined>);
  /**
   * Who is calling, for the current request: the identity `identify` gave it (see
   * `IdentifyCaller`), worked out once per request, or `undefined` when the request names
   * nobody. Stdio has none: its one client keeps no state across requests but the 2026-era
   * `requestState`, which it carries itself.
   */
  readonly identity?: () => Promise<string | undefined>;
  /**
   * Stateless 2025-era serving (HTTP): the calls in flight in this process, which a separate
   * `notifications/cancelled` request of the same caller can cancel. Questions to such a client
   * travel through {@link McpToolSurface.legacyElicitation}.
   */
  readonly cancellation?: {
    readonly calls: CancellableCalls;
    /** Where 2025-era answers and declarations cross instances (see `McpEndpointOptions.bus`). */
    readonly bus: InstanceBus;
  };
  /** The verified principal of the current request, put in every call's context as `principal`. */
  readonly principal?: () => ToolPrincipal | undefined;
  /** Where the current request came from, for its server span. */
  readonly network?: McpNetworkSource;
  /** The tasks of the tools that declare `task`, each bound to the caller that created it. */
  readonly tasks?: { readonly service: McpTasks };
  /** The endpoint may be one of several instances (HTTP): a per-process state key is worth a warning. */
  readonly scaled?: boolean;
}

/** The answer to a `tools/call`: its result, and the output schema the SDK projects it by. */
export interface McpCallAnswer {
  readonly result: CallToolResult;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/** How one `tools/call` reaches its caller: cancellation, progress and log notifications. */
export type McpCallChannel = McpChannelCommons &
  (
    | { readonly signal: AbortSignal; readonly controller?: undefined }
    | {
        readonly signal: CallerSignal;
        /**
         * What aborts `signal`, when the channel owns it: a 2025-era cancellation aborts it
         * directly, and the call is registered for one only once it waits on something.
         */
        readonly controller: Abortable;
      }
  );

interface McpChannelCommons {
  readonly requestId: unknown;
  readonly progressToken?: unknown;
  /** Sends a notification on the request's own stream. */
  readonly notify?: (method: string, params: Record<string, unknown>) => unknown;
  /** The request's server span context, which the call's span is a child of. */
  readonly traceContext?: unknown;
  /** How the call's questions reach the client (the 2026 era's multi round-trip input). */
  readonly ask?: ToolAsk;
}

/**
 * The application's tools as MCP sees them, prepared once: the `tools/list` entries of each era,
 * and `tools/call` through the canonical runner (`transport: 'MCP'`, `source: 'mcp'`). Both the
 * SDK server (per request) and the endpoint's direct path answer from here; what differs between
 * the protocol revisions (asking, cancellation, tasks, capabilities) is each era's.
 */
export class McpToolSurface {
  private readonly prepared: Record<Era, Map<ToolDescriptor, Tool>>;
  private readonly fullList: Record<Era, readonly Tool[]>;
  /** Whether a guard's `canList` makes the list depend on the caller (fixed once compiled). */
  private readonly filtersListing: boolean;
  /** The compiled tools exposed on MCP, by name. */
  private readonly tools: ReadonlyMap<string, CompiledTool>;
  /**
   * The tools whose calls the endpoint may answer without the SDK: their result needs no era
   * projection (an object or no output schema) and no presenter.
   */
  private readonly direct: ReadonlySet<string>;
  /** The protocol revisions served, by the SDK's name of their era. */
  private readonly eras: { readonly legacy: LegacyEra; readonly modern: McpEra };
  /**
   * Questions to 2025-era clients served statelessly (HTTP), when some tool asks: the endpoint
   * feeds it the `initialize` requests and the answer POSTs.
   */
  readonly legacyElicitation?: LegacyElicitation;
  /** The invoker's telemetry, which request spans follow (absent when it is off). */
  readonly telemetry?: ToolTelemetry;
  /** The resources, templates, prompts and completions, when the application declares any. */
  private readonly operations?: McpOperationSurface;
  /** The names of the prompts exposed on MCP, for the request spans. */
  private readonly prompts: ReadonlySet<string>;
  /** The invoker's catalog and runner, which calls go through. */
  private readonly runner: CatalogInvoker;
  /** The SDK server's `cacheHints` option, when some list has one. */
  private readonly cacheHints: ReturnType<typeof sdkCacheHints>;

  constructor(readonly settings: McpServerFactoryOptions) {
    const { invoker } = settings;
    this.runner = catalogInvoker(invoker);
    const { catalog } = this.runner;
    const manifest = catalog.manifest('MCP');
    this.telemetry = this.runner.telemetry;
    this.tools = new Map(catalog.tools('MCP').map((tool) => [tool.spec.name, tool]));
    this.direct = new Set(
      [...this.tools.values()]
        .filter(({ spec, descriptor: { outputSchema } }) => {
          const projected = outputSchema !== undefined && outputSchema.type !== 'object';
          // A tool that asks goes through the SDK, which carries its questions; one that runs
          // only as a task too, whose handle the SDK's server answers (a plain call of a tool
          // that may run as one is answered here unless the client asks for a task).
          return !projected && !spec.present?.mcp && !spec.asks && spec.task !== 'required';
        })
        .map(({ spec }) => spec.name),
    );
    this.filtersListing = catalog.filtersListing('MCP');
    const { auth, cacheHints } = settings.options;
    refusePublicCallerLists(cacheHints, {
      tools: this.filtersListing,
      resources: catalog.filtersListing('MCP', 'resource'),
      resourceTemplates: catalog.filtersListing('MCP', 'resource'),
      prompts: catalog.filtersListing('MCP', 'prompt'),
    });
    this.cacheHints = sdkCacheHints(cacheHints);
    const signIn = auth && { requiredScopes: auth.requiredScopes ?? [] };
    const operations = new McpOperationSurface({
      invoker,
      logger: settings.logger,
      context: () => this.context(),
    });
    if (operations.hasResources || operations.hasPrompts) this.operations = operations;
    const eraSettings = this.eraSettings();
    this.eras = { legacy: legacyEra(eraSettings), modern: modernEra(eraSettings) };
    this.legacyElicitation = this.eras.legacy.elicitation;
    const { legacy, modern } = this.eras;
    this.prepared = {
      modern: new Map(manifest.map((d) => [d, toMcpTool(d, modern, signIn)])),
      legacy: new Map(manifest.map((d) => [d, toMcpTool(d, legacy, signIn)])),
    };
    this.fullList = {
      modern: Object.freeze([...this.prepared.modern.values()]),
      legacy: Object.freeze([...this.prepared.legacy.values()]),
    };
    this.prompts = new Set(invoker.operations('MCP', 'prompt').map(({ name }) => name));
  }

  /** What the eras are built from: this surface's tools, callers and services. */
  private eraSettings(): McpEraSettings {
    const { settings } = this;
    return {
      logger: settings.logger,
      capabilities: { ...CAPABILITIES, ...this.operations?.capabilities },
      requestState: settings.options.requestState,
      cancellation: settings.cancellation,
      tasks: settings.tasks?.service,
      scaled: settings.scaled,
      asks: [...this.tools.values()].some(({ spec }) => spec.asks),
      spec: (name) => this.tools.get(name)?.spec,
      identity: () => this.identity(),
      owner: () => this.owner(),
      call: (era, name, args, channel) => this.call(era, name, args, channel),
    };
  }

  /**
   * The explicit context of the current request's calls: the endpoint's, with the verified
   * principal of a signed-in caller under `principal`.
   */
  context(): ToolContext | undefined | Promise<ToolContext | undefined> {
    const { context, principal } = this.settings;
    const explicit = typeof context === 'function' ? context() : context;
    const verified = principal?.();
    if (!verified) return explicit;
    // The verified principal wins over anything a resolver put under its key.
    return isThenable(explicit)
      ? explicit.then((resolved) => ({ ...resolved, [PRINCIPAL_KEY]: verified }))
      : { ...explicit, [PRINCIPAL_KEY]: verified };
  }

  /**
   * The `tools/list` entries of an era when every caller sees them all (no guard has `canList`):
   * the same frozen array each time. `undefined` when the list depends on the caller.
   */
  sharedList(era: Era): readonly Tool[] | undefined {
    return this.filtersListing ? undefined : this.fullList[era];
  }

  /**
   * The entries of a resources, templates or prompts list when every caller sees it whole and
   * the server declares it: the same frozen array each time. `undefined` otherwise.
   */
  sharedListOf(
    method: 'resources/list' | 'resources/templates/list' | 'prompts/list',
  ): readonly object[] | undefined {
    return this.operations?.sharedList(method);
  }

  /** Whether the endpoint may answer a read of this URI itself: some resource or template serves it. */
  readsDirectly(uri: string): boolean {
    return this.operations !== undefined && this.runner.catalog.resource(uri, 'MCP') !== undefined;
  }

  /** Reads a resource for a `resources/read` (see `McpOperationSurface.read`). */
  read(
    uri: string,
    signal: CallerSignal,
    traceContext: unknown,
  ): { contents: object[] } | Promise<{ contents: object[] }> {
    return this.operations!.read(uri, signal, traceContext);
  }

  /**
   * The `tools/list` entries for an era, filtered by the guards' `canList` when any has one.
   * A context resolver or `canList` that throws answers the JSON-RPC `-32603` error: a
   * `ToolError`'s public message, otherwise only "Internal error" (the text stays in the log).
   */
  async list(era: Era): Promise<readonly Tool[]> {
    // Every caller sees the whole list: no context is resolved for it (as on the direct path).
    if (!this.filtersListing) return this.fullList[era];
    const { invoker, logger } = this.settings;
    let visible: readonly ToolDescriptor[];
    try {
      visible = await invoker.visible('MCP', { context: await this.context() });
    } catch (error) {
      if (ToolError.is(error) && !isProgrammingError(error))
        throw new ProtocolError(ProtocolErrorCode.InternalError, error.message);
      logger.error('[toolwright] MCP tools/list failed:', error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
    }
    return visible === invoker.manifest('MCP')
      ? this.fullList[era]
      : visible.map((descriptor) => this.prepared[era].get(descriptor)!);
  }

  /**
   * Runs one `tools/call`. An unknown or non-MCP tool throws the JSON-RPC `-32602` error; every
   * outcome of a found tool is a `CallToolResult` (failures are `isError`), answered at once when
   * nothing on the way was asynchronous.
   */
  call(
    era: Era,
    name: string,
    args: unknown,
    channel: McpCallChannel,
  ): McpCallAnswer | Promise<McpCallAnswer> {
    const tool = this.tools.get(name);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        unknownToolMessage(String(name), this.settings.invoker.names('MCP')),
      );
    }
    return drive(this.calling(era, tool, args, channel));
  }

  private *calling(
    era: Era,
    tool: CompiledTool,
    args: unknown,
    channel: McpCallChannel,
  ): Generator<unknown, McpCallAnswer, unknown> {
    const { logger } = this.settings;
    const { name } = tool.spec;
    // A 2026-era client cancels by closing the request, which aborts the channel's signal; a
    // 2025-era one by a separate notification, which reaches the call through its era.
    const cancellation = this.eras[era].cancellable?.(channel);
    const signal = cancellation?.signal ?? channel.signal;
    const notify = channel.notify && pendingNotifications(channel.notify);
    let outcome: ToolResult;
    try {
      let context = this.context();
      if (isThenable(context)) {
        cancellation?.waits();
        context = (yield context) as ToolContext | undefined;
      }
      let running = this.runner.run(tool, args ?? {}, {
        transport: 'MCP',
        source: 'mcp',
        context,
        signal,
        present: 'mcp',
        traceContext: channel.traceContext,
        ask: channel.ask,
        onProgress: notify && progressSink(notify, channel.progressToken),
        onLog: notify && logSink(notify),
      });
      if (isThenable(running)) {
        cancellation?.waits();
        running = (yield running) as ToolResult;
      }
      outcome = running;
    } catch (error) {
      // Only the explicit context can fail here (the runner never throws).
      if (!ToolError.is(error) || isProgrammingError(error))
        logger.error(`[toolwright] MCP context for "${name}" failed:`, error);
      outcome = { ok: false, error: toFailure(normalizeError(error)) };
    } finally {
      cancellation?.ended();
    }
    // The answer goes out after the notifications the call sent: a client drops a progress
    // notification that arrives after the response to its request.
    if (notify?.pending.length) yield Promise.all(notify.pending);
    let result: CallToolResult;
    try {
      result = toCallToolResult(outcome, tool.spec);
    } catch (error) {
      // Data JSON.stringify cannot write (nested deeper than the stack allows) is a failure.
      logger.error(`[toolwright] MCP result of "${name}" cannot be written:`, error);
      result = internalErrorResult();
    }
    return { result, outputSchema: tool.descriptor.outputSchema };
  }

  /** Which names a request's span may record on metrics: the tools exposed on MCP. */
  readonly catalog: McpCatalog = (kind, name) =>
    kind === 'tool' ? this.tools.has(name) : this.prompts.has(name);

  /** Who is calling (see {@link McpServerFactoryOptions.identity}); never rejects. */
  private identity(): Promise<string | undefined> {
    return this.settings.identity?.() ?? NO_IDENTITY;
  }

  /**
   * The owner of the tasks the current request creates or reads: its caller's identity, as a
   * digest. A request that names nobody gets no task: `-32600`, and the log (once) the options
   * that fix it.
   */
  private async owner(): Promise<string> {
    const identity = await this.identity();
    if (identity === undefined) {
      adviseOnce(this.settings.logger, MCP_MESSAGES.anonymousTasks());
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, NO_IDENTITY_FOR_TASKS);
    }
    return identityKey(identity);
  }

  /** Whether the endpoint may answer a call of this tool without the SDK (decided once). */
  answersDirectly(name: string): boolean {
    return this.direct.has(name);
  }

  /** Whether this tool may run as a task (a call that asks for one goes through the SDK). */
  runsAsTask(name: string): boolean {
    return this.tools.get(name)?.spec.task !== undefined;
  }

  /** A fresh SDK server for one request (or one stdio connection), answering from this surface. */
  readonly serverFactory: McpServerFactory = ({ era: name }) => {
    const { options, network } = this.settings;
    const era = this.eras[name];
    const serverOptions = {
      capabilities: era.capabilities,
      ...(options.instructions !== undefined && { instructions: options.instructions }),
      ...(this.cacheHints && { cacheHints: this.cacheHints }),
      ...era.serverOptions,
    };
    const { telemetry } = this;
    const spans = telemetry
      ? new McpTransportSpans(telemetry, this.catalog, network ?? (() => undefined))
      : undefined;
    const server = new SurfaceServer(
      spans,
      this.settings.logger,
      options.serverInfo,
      serverOptions,
    );
    server.setRequestHandler('tools/list', async () => ({ tools: [...(await this.list(name))] }));
    server.setRequestHandler(
      'tools/call',
      async (request, ctx) =>
        (await this.answerCall(era, server, request.params, ctx, spans)) as never,
    );
    this.operations?.register(server, name, (id) => spans?.contextOf(id));
    era.register(server);
    return server;
  };

  /**
   * Answers a `tools/call` on the SDK's path: a task's handle when the call starts one, the
   * next round's question when it ended on one (2026-07-28), else the call's result as the
   * request's server projects it.
   */
  private async answerCall(
    era: McpEra,
    server: Server,
    params: McpToolCallParams,
    ctx: ServerContext,
    spans: McpTransportSpans | undefined,
  ): Promise<object> {
    const created = era.startTask && (await era.startTask(server, ctx, params));
    if (created) return created;
    const asking = era.asking && (await era.asking(server, ctx, params));
    const { result, outputSchema } = await this.call(era.name, params.name, params.arguments, {
      ask: asking?.ask,
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      progressToken: params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken,
      traceContext: spans?.contextOf(ctx.mcpReq.id),
      notify: (method, notificationParams) =>
        method === 'notifications/message'
          ? ctx.mcpReq.log(notificationParams.level as LoggingLevel, notificationParams.data)
          : ctx.mcpReq.notify({ method, params: notificationParams } as never),
    });
    // A call that ended on an open question asks it: the client answers in the next round.
    const question = await asking?.inputRequired?.();
    if (question) return question;
    return server.projectCallToolResult(result, outputSchema);
  }
}

const CAPABILITIES = { tools: { listChanged: false }, logging: {} };

const NO_IDENTITY: Promise<undefined> = Promise.resolve(undefined);

const NO_IDENTITY_FOR_TASKS =
  'Tasks are kept for the caller that created them, and this request names no caller: send ' +
  'the credentials this server knows its callers by.';

/**
 * The per-request MCP server factory: `tools/list` from entries prepared once per era (filtered
 * only by `canList`), `tools/call` through the canonical runner, progress and log notifications on
 * the request's own stream, and the request's cancellation.
 */
export function createMcpServerFactory(settings: McpServerFactoryOptions): McpServerFactory {
  return new McpToolSurface(settings).serverFactory;
}
