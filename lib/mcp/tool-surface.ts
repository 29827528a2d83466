import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  Server,
  type CallToolResult,
  type ServerContext,
  type LoggingLevel,
  type McpRequestContext,
  type McpServerFactory,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import { compiledTool, invokerInternals } from '../core/compiled-tools.js';
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
import type { ToolContext, ToolLogLevel, ToolProgress } from '../core/types.js';
import { internalErrorResult, toCallToolResult } from './call-tool-result.js';
import type { Abortable, CancellableCalls } from './cancellable-calls.js';
import type { InstanceBus } from '../core/instance-bus.js';
import type { ResolvedMcpEndpointOptions } from './endpoint-options.js';
import { McpTransportSpans, type McpCatalog, type McpNetworkSource } from './telemetry.js';
import { elicitationParams, McpAsking, unansweredInTime, type McpAskRound } from './asking.js';
import type { ToolAsk, ToolQuestion } from '../core/asking.js';
import { LegacyElicitation } from './legacy-elicitation.js';
import { McpOperationSurface } from './operation-surface.js';
import { LEGACY_TASK_CAPABILITIES, legacyTask, registerLegacyTasks } from './legacy-tasks.js';
import {
  declaresTasks,
  missingTasksCapability,
  modernTask,
  registerModernTasks,
  TASKS_EXTENSION,
} from './modern-tasks.js';
import type { McpTasks, TaskOutcome, TaskRun } from './tasks.js';
import type { ToolTelemetry } from '../core/telemetry.js';
import { identityKey } from '../core/caller-identity.js';

type Era = McpRequestContext['era'];

/**
 * The `tools/list` entry of a tool, per era. A 2025-era `outputSchema` must have an object root,
 * so a non-object output schema is advertised wrapped as `{ result }` there — the same wrap the
 * SDK applies to such a tool's `structuredContent` on that era.
 */
export function toMcpTool(descriptor: ToolDescriptor, era: Era): Tool {
  const { title, ...hints } = descriptor.annotations;
  const output = descriptor.outputSchema;
  const outputSchema =
    output === undefined || era === 'modern' || output.type === 'object'
      ? output
      : wrapResult(output);
  return {
    name: descriptor.name,
    ...(title !== undefined && { title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema as Tool['inputSchema'],
    ...(outputSchema !== undefined && { outputSchema: outputSchema as Tool['outputSchema'] }),
    annotations: { ...(title !== undefined && { title }), ...hints },
    ...(descriptor.icons !== undefined && { icons: descriptor.icons as Tool['icons'] }),
    ...(descriptor._meta !== undefined && { _meta: descriptor._meta as Tool['_meta'] }),
    // Only the 2025-11-25 revision lists it: the 2026-07-28 tasks extension leaves the choice to
    // the server per call, and the SDK's 2026 codec drops the field.
    ...(descriptor.task !== undefined &&
      era === 'legacy' && { execution: { taskSupport: descriptor.task } }),
  };
}

function wrapResult(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema, ...rest } = schema;
  return {
    ...($schema !== undefined && { $schema }),
    type: 'object',
    properties: { result: rest },
    required: ['result'],
  };
}

/** Options of {@link McpToolSurface}. */
export interface McpServerFactoryOptions {
  readonly invoker: ToolInvoker;
  readonly options: Pick<
    ResolvedMcpEndpointOptions,
    'serverInfo' | 'instructions' | 'requestState'
  >;
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

const LOG_LEVELS: Readonly<Record<ToolLogLevel, LoggingLevel>> = {
  debug: 'debug',
  info: 'info',
  warning: 'warning',
  error: 'error',
};

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
 * SDK server (per request) and the endpoint's direct path answer from here.
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
  /** Multi round-trip input (the 2026-07-28 era), when some tool asks. */
  private readonly asking?: McpAsking;
  /**
   * Questions to 2025-era clients served statelessly (HTTP), when some tool asks: the endpoint
   * feeds it the `initialize` requests and the answer POSTs.
   */
  readonly legacyElicitation?: LegacyElicitation;
  /** How long a question waits for its answer, in milliseconds. */
  private readonly waitMs: number;
  /** The invoker's telemetry, which request spans follow (absent when it is off). */
  readonly telemetry?: ToolTelemetry;
  /** The resources, templates, prompts and completions, when the application declares any. */
  private readonly operations?: McpOperationSurface;
  /**
   * The server capabilities of each era: tools and logging, what the operations call for, and
   * tasks when a tool may run as one (the 2025 `tasks` capability, the 2026 extension).
   */
  private readonly capabilities: Readonly<Record<Era, Readonly<Record<string, unknown>>>>;

  constructor(readonly settings: McpServerFactoryOptions) {
    const { invoker } = settings;
    const manifest = invoker.manifest('MCP');
    this.telemetry = invokerInternals(invoker).telemetry;
    this.tools = new Map(manifest.map(({ name }) => [name, compiledTool(invoker, name, 'MCP')!]));
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
    this.waitMs = (settings.options.requestState?.ttlSeconds ?? 600) * 1000;
    if ([...this.tools.values()].some(({ spec }) => spec.asks)) {
      this.asking = new McpAsking(
        settings.options.requestState,
        settings.cancellation?.bus,
        settings.logger,
      );
      if (settings.cancellation) {
        this.legacyElicitation = new LegacyElicitation(
          this.waitMs,
          settings.cancellation.bus,
          settings.logger,
        );
      }
      if (this.asking.ownKey && settings.scaled) {
        settings.logger.warn?.(
          '[toolwright] MCP: tools ask the user, and no requestState key is set: this process ' +
            'made its own, so a question is answered only on the instance that asked it. Set ' +
            'mcp.requestState.key (32 bytes or more, the same on every instance).',
        );
      }
    }
    this.prepared = {
      modern: new Map(manifest.map((d) => [d, toMcpTool(d, 'modern')])),
      legacy: new Map(manifest.map((d) => [d, toMcpTool(d, 'legacy')])),
    };
    this.fullList = {
      modern: Object.freeze([...this.prepared.modern.values()]),
      legacy: Object.freeze([...this.prepared.legacy.values()]),
    };
    this.filtersListing = settings.invoker.filtersListing('MCP');
    const operations = new McpOperationSurface({
      invoker,
      logger: settings.logger,
      context: () => this.context(),
    });
    if (operations.hasResources || operations.hasPrompts) this.operations = operations;
    const capabilities = { ...CAPABILITIES, ...this.operations?.capabilities };
    this.capabilities = settings.tasks
      ? {
          legacy: Object.freeze({ ...capabilities, tasks: LEGACY_TASK_CAPABILITIES }),
          modern: Object.freeze({ ...capabilities, extensions: { [TASKS_EXTENSION]: {} } }),
        }
      : { legacy: Object.freeze(capabilities), modern: Object.freeze(capabilities) };
    this.prompts = new Set(invoker.operations('MCP', 'prompt').map(({ name }) => name));
  }

  /** The names of the prompts exposed on MCP, for the request spans. */
  private readonly prompts: ReadonlySet<string>;

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
    return (
      this.operations !== undefined &&
      invokerInternals(this.settings.invoker).resource(uri, 'MCP') !== undefined
    );
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
    const { invoker, logger, cancellation } = this.settings;
    const { name } = tool.spec;
    // A 2026-era client cancels by closing the request; a 2025-era one by a separate notification,
    // which reaches the call through the controller it is registered with.
    let signal: CallerSignal = channel.signal;
    let untrack: (() => void) | undefined;
    let track: (() => void) | undefined;
    if (era === 'legacy' && cancellation) {
      const { requestId } = channel;
      if (channel.controller) {
        // Registered only when the call waits: no cancellation can reach it before.
        const { controller } = channel;
        track = () => {
          untrack ??= cancellation.calls.track(this.identity(), requestId, controller);
        };
      } else {
        const controller = new AbortController();
        untrack = cancellation.calls.track(this.identity(), requestId, controller);
        signal = AbortSignal.any([channel.signal, controller.signal]);
      }
    }
    const notify = channel.notify && this.notifications(channel.notify);
    let outcome: ToolResult;
    try {
      let context = this.context();
      if (isThenable(context)) {
        track?.();
        context = (yield context) as ToolContext | undefined;
      }
      let running = invokerInternals(invoker).run(tool, args ?? {}, {
        transport: 'MCP',
        source: 'mcp',
        context,
        signal,
        present: 'mcp',
        traceContext: channel.traceContext,
        ask: channel.ask,
        onProgress: notify && progressSink(notify, channel.progressToken),
        onLog:
          notify &&
          ((level, message, data) =>
            notify('notifications/message', {
              level: LOG_LEVELS[level],
              data: data === undefined ? message : { message, data },
            })),
      });
      if (isThenable(running)) {
        track?.();
        running = (yield running) as ToolResult;
      }
      outcome = running;
    } catch (error) {
      // Only the explicit context can fail here (the runner never throws).
      if (!ToolError.is(error) || isProgrammingError(error))
        logger.error(`[toolwright] MCP context for "${name}" failed:`, error);
      outcome = { ok: false, error: toFailure(normalizeError(error)) };
    } finally {
      untrack?.();
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

  /** A call's notification sender that keeps what is still being sent (failures are the sinks' to report). */
  private notifications(send: NonNullable<McpCallChannel['notify']>) {
    const pending: Promise<unknown>[] = [];
    const notify = (method: string, params: Record<string, unknown>) => {
      const sending = send(method, params);
      if (isThenable(sending)) pending.push(Promise.resolve(sending).catch(() => undefined));
      return sending;
    };
    return Object.assign(notify, { pending });
  }

  /** Which names a request's span may record on metrics: the tools exposed on MCP. */
  readonly catalog: McpCatalog = (kind, name) =>
    kind === 'tool' ? this.tools.has(name) : this.prompts.has(name);

  /**
   * How a 2025-era call asks, when its client declared elicitation: over stateless HTTP through
   * {@link legacyElicitation} (the SDK server of the request never saw the client's
   * `initialize`), otherwise (stdio) through the SDK's own `elicitation/create`.
   */
  private async legacyAsk(server: Server, ctx: ServerContext): Promise<ToolAsk | undefined> {
    const { legacyElicitation, waitMs } = this;
    const { logger } = this.settings;
    if (legacyElicitation) {
      const caller = await this.identity();
      if (caller === undefined) return askingNeedsIdentity;
      try {
        if (!(await legacyElicitation.canAsk(caller))) return undefined;
      } catch (error) {
        // Whether the client can answer is on the bus, which did not say: asking fails.
        logger.error('[toolwright] MCP: the instance bus could not be read:', error);
        return (question) =>
          Promise.reject(
            new ToolError('SERVICE_UNAVAILABLE', {
              message: `Tool "${question.call.name}" could not ask the user: the instance bus did not answer.`,
            }),
          );
      }
      return (question, { signal }) =>
        legacyElicitation.ask(question, caller, signal, (message) =>
          sendOnStream(server, message, ctx.mcpReq.id),
        );
    }
    if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
    return async (question, { signal }) => {
      try {
        const answer = await ctx.mcpReq.elicitInput(elicitationParams(question) as never, {
          signal,
          timeout: waitMs,
        });
        return answer.action === 'accept'
          ? { action: 'accept', content: answer.content ?? {} }
          : { action: answer.action };
      } catch (error) {
        throw elicitationFailure(question, error, waitMs);
      }
    };
  }

  /** Who is calling (see {@link McpServerFactoryOptions.identity}); never rejects. */
  private identity(): Promise<string | undefined> {
    return this.settings.identity?.() ?? NO_IDENTITY;
  }

  /**
   * The owner of the tasks the current request creates or reads: its caller's identity, as a
   * digest. A request that names nobody gets no task: `-32600`, naming the options that fix it.
   */
  private async owner(): Promise<string> {
    const identity = await this.identity();
    if (identity === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, NO_IDENTITY_FOR_TASKS);
    }
    return identityKey(identity);
  }

  /**
   * A 2025-11-25 `tools/call` of a tool that runs as a task: with `params.task`, the task is
   * stored and started, and its handle answered (`CreateTaskResult`); a tool that requires a
   * task called without one, or one that runs no task called with one, gets `-32601` as the
   * revision says. `undefined` for a plain call, which runs as usual.
   */
  private async legacyTaskCall(
    server: Server,
    params: { name: string; arguments?: unknown; task?: { ttl?: unknown } },
    tasks: NonNullable<McpServerFactoryOptions['tasks']>,
  ): Promise<Record<string, unknown> | undefined> {
    const tool = this.tools.get(params.name);
    if (!tool) return undefined;
    const support = tool.spec.task;
    if (params.task === undefined) {
      if (support !== 'required') return undefined;
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool "${params.name}" runs only as a task: call it with params.task.`,
      );
    }
    if (support === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool "${params.name}" does not run as a task: call it without params.task.`,
      );
    }
    const task = await tasks.service.start(
      await this.owner(),
      params.name,
      params.task?.ttl,
      { era: 'legacy' },
      (running) => this.runTask('legacy', server, params.arguments, running),
    );
    return createdTask({ task: legacyTask(task) });
  }

  /**
   * A 2026-07-28 `tools/call` of a tool that runs as a task, from a client that declared the
   * tasks extension: the task is stored and started, and its handle answered (`resultType:
   * "task"`); its questions become the task's `inputRequests`, answered by `tasks/update`. A
   * tool that requires a task, called by a client that did not declare the extension, gets
   * `-32021`. `undefined` for a call that runs as usual.
   */
  private async modernTaskCall(
    server: Server,
    ctx: ServerContext,
    params: { name: string; arguments?: unknown },
    tasks: NonNullable<McpServerFactoryOptions['tasks']>,
  ): Promise<Record<string, unknown> | undefined> {
    const support = this.tools.get(params.name)?.spec.task;
    if (support === undefined) return undefined;
    if (!declaresTasks(ctx)) {
      if (support === 'required') throw missingTasksCapability();
      return undefined;
    }
    const { service } = tasks;
    const task = await service.start(
      await this.owner(),
      params.name,
      undefined,
      { era: 'modern' },
      (running) =>
        this.runTask(
          'modern',
          server,
          params.arguments,
          running,
          service.asker(running.task, (question) => ({
            method: 'elicitation/create',
            params: elicitationParams(question),
          })),
        ),
    );
    return createdTask({ resultType: 'task', ...modernTask(task) });
  }

  /**
   * Runs a task's call through the same path as any call, its progress reported as the task's
   * status message; on the 2025 era a tool error fails the task (its result kept), on the
   * 2026-07-28 era it completes it.
   */
  private async runTask(
    era: Era,
    server: Server,
    args: unknown,
    { task, signal, report }: Parameters<TaskRun>[0],
    ask?: ToolAsk,
  ): Promise<TaskOutcome> {
    const { result, outputSchema } = await this.call(era, task.name, args, {
      // Not a JSON-RPC id: no 2025-era cancellation names it (a task is cancelled by tasks/cancel).
      requestId: { taskId: task.taskId },
      signal,
      ask,
      progressToken: 'task',
      notify: (method, params) => {
        if (method !== 'notifications/progress') return;
        const { progress, total, message } = params as {
          progress: number;
          total?: number;
          message?: string;
        };
        report(message ?? (total !== undefined ? `${progress} of ${total}` : String(progress)));
      },
    });
    const projected = server.projectCallToolResult(result, outputSchema) as Record<string, unknown>;
    return {
      status: era === 'legacy' && result.isError === true ? 'failed' : 'completed',
      result: projected,
    };
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
  readonly serverFactory: McpServerFactory = ({ era }) => {
    const { options, cancellation, network, tasks } = this.settings;
    const { asking } = this;
    const serverOptions = {
      capabilities: this.capabilities[era],
      ...(options.instructions !== undefined && { instructions: options.instructions }),
      // A sealed requestState is checked by the SDK before the handler runs (-32602 when it fails).
      ...(asking && era === 'modern' && { requestState: { verify: asking.verify } }),
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
    server.setRequestHandler('tools/list', async () => ({ tools: [...(await this.list(era))] }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const params = request.params as {
        name: string;
        arguments?: unknown;
        _meta?: Record<string, unknown>;
      };
      if (tasks) {
        const created =
          era === 'legacy'
            ? await this.legacyTaskCall(server, request.params, tasks)
            : await this.modernTaskCall(server, ctx, request.params, tasks);
        if (created) return created as never;
      }
      let round: McpAskRound | undefined;
      let ask: ToolAsk | undefined;
      if (asking && era === 'modern') {
        if (this.tools.get(params.name)?.spec.asks) {
          // The state, which the client can read, carries the caller as a digest. An anonymous
          // caller's rounds are bound to no one: any anonymous caller could answer.
          const identity = await this.identity();
          const caller = identity === undefined ? '' : identityKey(identity);
          round = asking.round(ctx, params.name, params.arguments, caller);
          await round.taken();
          ask = round.ask;
        } else {
          asking.refuseStray(ctx);
        }
      } else if (asking && this.tools.get(params.name)?.spec.asks) {
        ask = await this.legacyAsk(server, ctx);
      }
      const { result, outputSchema } = await this.call(era, params.name, params.arguments, {
        ask,
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
      const question = await round?.inputRequired();
      if (question) return question;
      return server.projectCallToolResult(result, outputSchema);
    });
    this.operations?.register(server, era, (id) => spans?.contextOf(id));
    const owner = () => this.owner();
    if (tasks && era === 'legacy') registerLegacyTasks(server, tasks.service, owner);
    if (tasks && era === 'modern') registerModernTasks(server, tasks.service, owner);
    if (cancellation && era === 'legacy') {
      server.setNotificationHandler('notifications/cancelled', async (notification) =>
        cancellation.calls
          .cancel(
            await this.identity(),
            notification.params?.requestId,
            notification.params?.reason,
          )
          .catch((error: unknown) =>
            this.settings.logger.error(
              '[toolwright] MCP: a cancellation could not be passed to the other instances:',
              error,
            ),
          ),
      );
    }
    return server;
  };
}

const CAPABILITIES = { tools: { listChanged: false }, logging: {} };

const NO_IDENTITY: Promise<undefined> = Promise.resolve(undefined);

const NO_IDENTITY_FOR_TASKS =
  'Tasks are kept for the caller that created them, and this request names no caller: sign ' +
  'callers in (mcp.auth), or say who calls with mcp.identify (by default the id of ' +
  "request.user, else the principal of the request's context).";

/**
 * How a 2025-era question fails over HTTP when its request names no caller: its answer comes
 * as a request of its own, which could not be told apart from another anonymous caller's.
 */
const askingNeedsIdentity: ToolAsk = (question) =>
  Promise.reject(
    new ToolError('USER_INPUT_UNAVAILABLE', {
      message:
        `Tool "${question.call.name}" could not ask the user: a 2025-era client answers in a ` +
        'request of its own, and this request names no caller to match it with.',
      hint: 'Sign callers in (mcp.auth), or say who calls with mcp.identify.',
    }),
  );

/**
 * Writes a message on the stream of the request `relatedRequestId` (an `elicitation/create`, a
 * `notifications/cancelled`); rejects, never throws, once the request's server has closed.
 */
function sendOnStream(server: Server, message: unknown, relatedRequestId: unknown): Promise<void> {
  const { transport } = server;
  if (!transport) return Promise.reject(new Error('The request’s stream is closed.'));
  return transport.send(message as never, { relatedRequestId: relatedRequestId as never });
}

/** A failed `elicitation/create` of the SDK, as the handler's question fails. */
function elicitationFailure(question: ToolQuestion, error: unknown, waitMs: number): unknown {
  const tool = question.call.name;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return unansweredInTime(tool, waitMs);
  }
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
    return new ToolError('VALIDATION_ERROR', {
      message: `The user's answer to "${tool}" does not fit the schema it asked with.`,
    });
  }
  if (error instanceof ProtocolError) {
    return new ToolError('USER_INPUT_UNAVAILABLE', {
      message: `Tool "${tool}" asked the user, and the client answered with an error: ${error.message}`,
    });
  }
  return error;
}

/**
 * The per-request MCP server factory: `tools/list` from entries prepared once per era (filtered
 * only by `canList`), `tools/call` through the canonical runner, progress and log notifications on
 * the request's own stream, and the request's cancellation.
 */
export function createMcpServerFactory(settings: McpServerFactoryOptions): McpServerFactory {
  return new McpToolSurface(settings).serverFactory;
}

/**
 * An SDK server whose transport's requests each get a server span, and whose handlers answer
 * only the errors they mean: a `ProtocolError` as it is; anything else (a bug, a stack that ran
 * out) is logged and answered `-32603 "Internal error"`, its text kept in the process. (The SDK
 * would answer the error's own message.)
 */
class SurfaceServer extends Server {
  constructor(
    private readonly spans: McpTransportSpans | undefined,
    private readonly logger: Pick<ToolLogger, 'error'>,
    ...args: ConstructorParameters<typeof Server>
  ) {
    super(...args);
  }

  override connect(transport: Transport): Promise<void> {
    this.spans?.watch(transport);
    return super.connect(transport);
  }

  /**
   * The SDK checks a `tools/call` handler's result as a `CallToolResult`, which a task's handle
   * is not: a handle made by {@link createdTask} is answered as it is, after the SDK's own
   * checks of the request.
   */
  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    const answered: typeof handler = async (request, ctx) => {
      try {
        return await handler(request, ctx);
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        this.logger.error(`[toolwright] MCP ${method} failed:`, error);
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error');
      }
    };
    if (method !== 'tools/call') return super._wrapHandler(method, answered);
    const checked = super._wrapHandler(method, async (request, ctx) => {
      const result = await answered(request, ctx);
      if (CREATED_TASKS.has(result)) throw new TaskCreated(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await checked(request, ctx);
      } catch (error) {
        if (error instanceof TaskCreated) return error.result;
        throw error;
      }
    };
  }
}

/** The task handles `tools/call` handlers answer (see {@link SurfaceServer}). */
const CREATED_TASKS = new WeakSet<object>();

/** Carries a task's handle past the SDK's check of a `tools/call` result. */
class TaskCreated {
  constructor(readonly result: Awaited<ReturnType<Parameters<Server['_wrapHandler']>[1]>>) {}
}

/** Marks a `tools/call` answer as a task's handle, which the request's server sends as it is. */
function createdTask<T extends object>(result: T): T {
  CREATED_TASKS.add(result);
  return result;
}

/**
 * Sends `notifications/progress` when the request carries a progress token. A missing
 * `progress` sends the next ordinal (from 1); a value that does not increase on the last one
 * sent is dropped (the spec requires increasing progress). The first value may be 0.
 */
function progressSink(notify: NonNullable<McpCallChannel['notify']>, token: unknown) {
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  let last: number | undefined;
  return (update: ToolProgress) => {
    const progress = update.progress ?? (last ?? 0) + 1;
    if (last !== undefined && progress <= last) return;
    last = progress;
    return notify('notifications/progress', {
      progressToken: token,
      progress,
      ...(update.total !== undefined && { total: update.total }),
      ...(update.message !== undefined && { message: update.message }),
    });
  };
}
