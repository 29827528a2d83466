import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { ToolCatalog } from '../core/catalog.js';
import { detached } from '../core/detached.js';
import type { DrainClosing } from '../core/drain.js';
import { catalogInvoker, type CatalogInvoker, type RunOptions } from '../core/catalog-invoker.js';
import type { ErrorMapper } from '../core/errors.js';
import type { ToolCallEvent, ToolHooks, ToolLogger } from '../core/hooks.js';
import {
  createToolInvoker,
  type InvokeOptions,
  type ToolInvoker as CoreToolInvoker,
} from '../core/invoker.js';
import type { ToolDescriptor } from '../core/manifest.js';
import type { OperationDescriptor, PromptGet, ResourceRead } from '../core/operations.js';
import type { ToolDefinition } from '../core/registry.js';
import type { ToolResult } from '../core/result.js';
import type { CompiledTool } from '../core/runner.js';
import type { ToolTelemetry } from '../core/telemetry.js';
import type { ToolContext, ToolTransport } from '../core/types.js';
import { mapHttpException } from './http-exception.mapper.js';
import type {
  ToolContextResolver,
  ToolsModuleOptions,
} from './interfaces/tools-module-options.interface.js';
import { ToolRequestContext } from './request-context.js';
import { ToolEvents } from './tool-events.service.js';
import { TOOLS_MODULE_OPTIONS, TOOLS_REGISTRY } from './tools.constants.js';
import { ToolsExplorer } from './tools.explorer.js';
import { MESSAGES, ToolsConfigurationError } from './tools.messages.js';

/**
 * Runs the application's tools in-process, through the same canonical runner as every other
 * surface. Inject it anywhere once `ToolsModule` is imported.
 *
 * @example
 * @Injectable()
 * export class TriageService {
 *   constructor(private readonly tools: ToolInvoker) {}
 *
 *   summary(id: string) {
 *     return this.tools.invokeOrThrow('helpdesk_get_ticket', { id }, { transport: 'AGENT' });
 *   }
 * }
 */
@Injectable()
export class ToolInvoker
  implements CatalogInvoker, OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger('ToolsModule');
  private compiled?: CatalogInvoker;
  /** When the drain started (`Date.now()`), once the application is shutting down. */
  private drainStarted?: number;

  constructor(
    @Inject(TOOLS_REGISTRY) private readonly tools: readonly ToolDefinition[],
    @Inject(TOOLS_MODULE_OPTIONS) private readonly options: ToolsModuleOptions,
    @Inject(ToolsExplorer) private readonly explorer: ToolsExplorer,
    @Inject(ToolRequestContext) private readonly requestContext: ToolRequestContext,
    @Inject(ToolEvents) private readonly events: ToolEvents,
  ) {}

  async onModuleInit(): Promise<void> {
    try {
      this.compiled = catalogInvoker(await this.compile());
    } catch (error) {
      if (error instanceof ToolsConfigurationError) throw error;
      throw new ToolsConfigurationError(MESSAGES.invalid((error as Error).message), {
        cause: error,
      });
    }
  }

  /** Runs a tool; every outcome of a found tool is a `ToolResult`. An unknown name rejects with `NOT_FOUND`. */
  invoke<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<T>> {
    return this.compiled
      ? this.compiled.invoke<T>(name, args, options)
      : Promise.reject(new Error(MESSAGES.notReady()));
  }

  /** Like `invoke`, but resolves to the data or rejects with the call's `ToolError`. */
  invokeOrThrow<T = unknown>(name: string, args: unknown, options: InvokeOptions): Promise<T> {
    return this.compiled
      ? this.compiled.invokeOrThrow<T>(name, args, options)
      : Promise.reject(new Error(MESSAGES.notReady()));
  }

  /** Reads a resource through the runner (see the core `ToolInvoker.readResource`). */
  readResource(uri: string, options: InvokeOptions): Promise<ToolResult<ResourceRead>> {
    return this.compiled
      ? this.compiled.readResource(uri, options)
      : Promise.reject(new Error(MESSAGES.notReady()));
  }

  /** Gets a prompt's messages through the runner (see the core `ToolInvoker.getPrompt`). */
  getPrompt(name: string, args: unknown, options: InvokeOptions): Promise<ToolResult<PromptGet>> {
    return this.compiled
      ? this.compiled.getPrompt(name, args, options)
      : Promise.reject(new Error(MESSAGES.notReady()));
  }

  /** The resources (with templates) or prompts exposed on a transport. */
  operations(
    transport: ToolTransport,
    kind: 'resource' | 'prompt',
  ): readonly OperationDescriptor[] {
    return this.ready.operations(transport, kind);
  }

  /** The resources or prompts a caller may see on a transport. */
  visibleOperations(
    transport: ToolTransport,
    kind: 'resource' | 'prompt',
    options?: { context?: ToolContext },
  ): Promise<readonly OperationDescriptor[]> {
    return this.ready.visibleOperations(transport, kind, options);
  }

  /** Suggestions for an argument of a prompt or resource template. */
  complete(
    name: string,
    argument: { name: string; value: string },
    options: Parameters<CoreToolInvoker['complete']>[2],
  ): Promise<readonly string[]> {
    return this.ready.complete(name, argument, options);
  }

  /** The names exposed on a transport: sorted, frozen, the same array on every call. */
  names(transport: ToolTransport): readonly string[] {
    return this.ready.names(transport);
  }

  /** One frozen descriptor per tool exposed on a transport, in declaration order. */
  manifest(transport: ToolTransport): readonly ToolDescriptor[] {
    return this.ready.manifest(transport);
  }

  /** The descriptors a caller may see on a transport, filtered by the guards' `canList`. */
  visible(
    transport: ToolTransport,
    options?: { context?: ToolContext },
  ): Promise<readonly ToolDescriptor[]> {
    return this.ready.visible(transport, options);
  }

  /**
   * Shuts down gracefully, with `shutdownGraceMs`: new calls answer `SERVICE_UNAVAILABLE`, running
   * ones may finish. It starts with the first shutdown hook (`onModuleDestroy`), before other
   * providers tear down what running calls may still use; later calls join the same drain.
   */
  close(options?: { graceMs?: number }): Promise<void> {
    if (!this.compiled) return Promise.resolve();
    const closing = this.compiled.close(options);
    if (!this.drainStarted) {
      this.drainStarted = Date.now();
      this.logDrain(closing, options?.graceMs ?? DEFAULT_GRACE_MS);
    }
    return closing;
  }

  /**
   * @internal Whether the invoker has started draining (the application is shutting down): what
   * the readiness check reports.
   */
  get draining(): boolean {
    return this.drainStarted !== undefined;
  }

  onModuleDestroy(): Promise<void> {
    return this.close({ graceMs: this.options.shutdownGraceMs });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.close({ graceMs: this.options.shutdownGraceMs });
  }

  /** The descriptor of the tool exposed under a name on a transport, or `undefined`. */
  find(name: string, transport: ToolTransport): ToolDescriptor | undefined {
    return this.ready.find(name, transport);
  }

  /** @internal The compiled catalog, for the library's surface adapters. */
  get catalog(): ToolCatalog {
    return this.ready.catalog;
  }

  /** @internal The telemetry of the calls, for the library's surface adapters. */
  get telemetry(): ToolTelemetry | undefined {
    return this.ready.telemetry;
  }

  /** @internal Runs a compiled tool of the catalog (see the core `CatalogInvoker.run`). */
  run(tool: CompiledTool, args: unknown, options: RunOptions): ToolResult | Promise<ToolResult> {
    return this.ready.run(tool, args, options);
  }

  /** @internal Reads a resource (see the core `CatalogInvoker.read`). */
  read(
    uri: string,
    options: RunOptions,
  ): ToolResult<ResourceRead> | Promise<ToolResult<ResourceRead>> | undefined {
    return this.ready.read(uri, options);
  }

  /** @internal The raw context a call made now would see. */
  context(explicit: ToolContext | undefined): ToolContext | Promise<ToolContext> {
    return this.ready.context(explicit);
  }

  /** Logs the drain's start (with the calls in flight) and its end (with those cut off). */
  private logDrain(closing: Promise<unknown>, graceMs: number): void {
    const { logger } = this;
    const { inFlight, report } = closing as Partial<DrainClosing>;
    logger.log(
      inFlight === 0
        ? 'Draining: no calls in flight; new calls are refused.'
        : `Draining: ${inFlight ?? 'the'} ${calls(inFlight ?? 2)} in flight ` +
            `${inFlight === 1 ? 'has' : 'have'} ${graceMs} ms to finish; new calls are refused.`,
    );
    detached(
      async () => {
        // The core invoker's close is its drain's: it carries the report. Another says less.
        const cutOff = report ? (await report).cutOff : (await closing, undefined);
        const ms = Date.now() - (this.drainStarted ?? Date.now());
        if (cutOff === undefined) return logger.log(`Drained in ${ms} ms.`);
        if (cutOff === 0) return logger.log(`Drained in ${ms} ms: every call in flight finished.`);
        logger.warn(
          `Drained in ${ms} ms: the grace period (${graceMs} ms) ran out with ${cutOff} ` +
            `${calls(cutOff)} still running, cut off: their signal was aborted and their ` +
            'callers answered SERVICE_UNAVAILABLE.',
        );
      },
      (error) => logger.error('Draining failed.', stackOf(error)),
    );
  }

  private get ready(): CatalogInvoker {
    if (!this.compiled) throw new Error(MESSAGES.notReady());
    return this.compiled;
  }

  private async compile(): Promise<CoreToolInvoker> {
    const { options, explorer } = this;
    const [bind, hooks, guards, resolver] = await Promise.all([
      explorer.explore(this.tools),
      Promise.all((options.hooks ?? []).map((hook) => explorer.instance<ToolHooks>(hook, 'hook'))),
      Promise.all((options.guards ?? []).map((guard) => explorer.instance(guard, 'guard'))),
      this.contextResolver(),
    ]);
    // The application's mapper first, then Nest's HttpException mapping: each is passed over
    // if it throws, so a failing mapper leaves the call as if it were not set.
    const mapError: ErrorMapper[] = options.mapError
      ? [options.mapError, mapHttpException]
      : [mapHttpException];
    return createToolInvoker(this.tools, {
      bind,
      hooks,
      guards,
      mapError,
      maxDepth: options.maxDepth,
      logger: this.coreLogger(),
      logUnexpectedErrors: options.logUnexpectedErrors,
      telemetry: options.telemetry,
      lintAnnotations: options.lintAnnotations,
      resolveContext: resolver && (() => this.requestContextOf(resolver)),
      onCallFinished: (event) => this.finished(event),
    });
  }

  private async contextResolver(): Promise<((request: unknown) => unknown) | undefined> {
    const source = this.options.context;
    if (source === undefined) return undefined;
    const isClass = typeof source === 'function' && typeof source.prototype?.resolve === 'function';
    if (!isClass) return source as (request: unknown) => unknown;
    const resolver = await this.explorer.instance<ToolContextResolver>(
      source as never,
      'context resolver',
    );
    return (request) => resolver.resolve(request);
  }

  private requestContextOf(resolver: (request: unknown) => unknown) {
    const request = this.requestContext.request;
    return request === undefined
      ? undefined
      : (resolver(request) as ToolContext | Promise<ToolContext>);
  }

  private finished(event: ToolCallEvent): void {
    this.events.emit(event);
    if (this.options.logCalls) {
      const outcome = event.ok ? 'ok' : event.errorCode;
      this.logger.log(
        `${event.name} ${event.transport}/${event.source} ${outcome} ${event.durationMs.toFixed(1)}ms`,
      );
    }
  }

  private coreLogger(): ToolLogger {
    const { logger } = this;
    // Nest's `error` takes the stack as its own argument; the other levels take a message only.
    const withStack = (message: string, error: unknown) =>
      error === undefined ? message : `${message}\n${stackOf(error)}`;
    return {
      error: (message, error) =>
        error === undefined ? logger.error(message) : logger.error(message, stackOf(error)),
      warn: (message, error) => logger.warn(withStack(message, error)),
      debug: (message, error) => logger.debug(withStack(message, error)),
    };
  }
}

/** The grace period of a close that names none (the core invoker's default). */
const DEFAULT_GRACE_MS = 10_000;

function calls(count: number): string {
  return count === 1 ? 'call' : 'calls';
}

function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? String(error)) : String(error);
}
