import type { ConfigurableModuleAsyncOptions } from '@nestjs/common';
import type { ErrorMapper } from '../../core/errors.js';
import type { ToolGuard, ToolHooks, UnexpectedErrorLevel } from '../../core/hooks.js';
import type { ToolCollection } from '../../core/registry.js';
import type { ToolTelemetryOptions } from '../../core/telemetry.js';
import type { Class, ToolContext } from '../../core/types.js';
import type { McpFactoryOptions, McpOptions } from '../mcp/mcp-options.js';

/**
 * Turns the current HTTP request into a call's context. Implement it on an injectable class to
 * use other providers; toolwright calls it once per tool call made during a request.
 *
 * @example
 * @Injectable()
 * export class TenantContext implements ToolContextResolver {
 *   resolve(request: Request) {
 *     return { tenantId: request.headers['x-tenant-id'], userId: request.user?.sub };
 *   }
 * }
 */
export interface ToolContextResolver {
  resolve(request: any): ToolContext | Promise<ToolContext>;
}

/** A context resolver: a function of the request, or an injectable `ToolContextResolver` class. */
export type ToolContextSource =
  ((request: any) => ToolContext | Promise<ToolContext>) | Class<ToolContextResolver>;

/**
 * The options of `ToolsModule.forRoot`. `forRootAsync` takes those that shape the module before DI
 * runs directly, and the others from its factory ({@link ToolsModuleFactoryOptions}).
 */
export interface ToolsModuleOptions {
  /** The tools to mount: a registry builder, its `build()` result, or a list of tools and tool classes. */
  registry: ToolCollection;
  /** Register the module globally, so `ToolInvoker` can be injected anywhere. @default true */
  isGlobal?: boolean;
  /**
   * Capture the current request on every route so tool calls see it: a Fastify `onRequest`
   * hook, or on Express a middleware ahead of the application's Nest middleware. Set `false` to
   * apply `ToolRequestMiddleware` yourself (on the routes, and in the order, you choose).
   * @default true
   */
  mountMiddleware?: boolean;
  /**
   * The MCP endpoint: options, or `false` to mount nothing (an application controller may then
   * extend `McpEndpoint`). @default { path: '/mcp' }
   */
  mcp?: McpOptions | false;
  /**
   * Register `ToolErrorFilter` globally: a `ToolError` that reaches Nest's exception layer on an
   * HTTP route (say, from `invokeOrThrow` in a controller) is answered with its status and the
   * failure envelope instead of a 500. `false` when the application answers `ToolError`s itself.
   * @default true
   */
  toolErrorFilter?: boolean;
  /** How a call's context is pulled from the current request. Outside a request only the caller's explicit context exists. */
  context?: ToolContextSource;
  /** Hook objects or injectable hook classes, run in order on every call. */
  hooks?: readonly (ToolHooks | Class<ToolHooks>)[];
  /** Guard objects or injectable `ToolGuard` classes, run on every call before per-tool guards. */
  guards?: readonly (ToolGuard | Class<ToolGuard>)[];
  /** Log one line per finished call through Nest's `Logger`. @default false */
  logCalls?: boolean;
  /** Nesting beyond this depth fails with `RECURSION_LIMIT`. @default 8 */
  maxDepth?: number;
  /**
   * On shutdown (`app.close()`, or a signal with `enableShutdownHooks()`), how long running calls
   * may take to finish before their handlers' signals are aborted. New calls are refused with
   * `SERVICE_UNAVAILABLE` meanwhile. @default 10000
   */
  shutdownGraceMs?: number;
  /** Maps thrown values to a `ToolError` before the built-in rules (Nest `HttpException` mapping included). */
  mapError?: ErrorMapper;
  /**
   * The level at which a call's unexpected failure is logged through Nest's `Logger` (with the
   * tool, the call id and the stack; never the arguments or the context), or `false` for none.
   * Unexpected: anything the caller sees as `INTERNAL_SERVER_ERROR` — a thrown value that is
   * neither a `ToolError` nor mapped to one (a plain `Error`, an `RpcException`), or an output that
   * does not match its schema. Expected failures (validation, refusals, `ToolError`s) are not
   * logged. @default 'error'
   */
  logUnexpectedErrors?: UnexpectedErrorLevel;
  /**
   * Run the application's global enhancers (`APP_GUARD`, `useGlobalInterceptors()`, …) on tool
   * calls too, besides those declared on tool classes and methods with `@UseGuards`,
   * `@UseInterceptors`, `@UsePipes` and `@UseFilters`. @default false
   */
  globalEnhancers?: boolean;
  /**
   * OpenTelemetry spans and metrics: an `execute_tool` span per call on every surface, an MCP
   * server span per MCP request, and their duration histograms. Emitted only when the
   * application registers an OpenTelemetry SDK; `false` turns them off. See docs/observability.md.
   *
   * @example
   * ToolsModule.forRoot({ registry, telemetry: { recordArguments: true } });
   */
  telemetry?: ToolTelemetryOptions | false;
  /**
   * Warns at bootstrap about each tool whose annotations lack a `title`, or a `destructiveHint`
   * while it is not read-only (some assistant directories require them). @default false
   *
   * @example
   * ToolsModule.forRoot({ registry, lintAnnotations: true });
   */
  lintAnnotations?: boolean;
}

/**
 * The options that shape the module before DI runs, so are known when it is defined:
 * `forRootAsync` takes them directly, never from its factory.
 */
export type ToolsModuleStaticOptions = Pick<
  ToolsModuleOptions,
  'registry' | 'isGlobal' | 'mountMiddleware' | 'mcp' | 'toolErrorFilter'
>;

/**
 * What `forRootAsync`'s factory (or the `createToolsOptions()` of its `useClass`) returns: the
 * options but those that shape the module before DI runs, and `mcp` but its routing.
 *
 * @example
 * @Injectable()
 * class ToolsOptionsFactory {
 *   constructor(@Inject(ConfigService) private readonly config: ConfigService) {}
 *
 *   createToolsOptions(): ToolsModuleFactoryOptions {
 *     return { mcp: { requestState: { key: this.config.getOrThrow('MCP_STATE_KEY') } } };
 *   }
 * }
 * ToolsModule.forRootAsync({ registry, useClass: ToolsOptionsFactory });
 */
export type ToolsModuleFactoryOptions = Omit<ToolsModuleOptions, keyof ToolsModuleStaticOptions> & {
  /**
   * The MCP endpoint's options from DI (its sign-in, `requestState` key, bus, tasks, …), laid
   * over the `mcp` given to `forRootAsync` directly, field by field. `mount` and `path` are
   * given there only, and so are `mcp.endpoints`: the factory's `endpoints` set options of
   * those, each named by its `path` (an admin endpoint's `auth` from `ConfigService`, say).
   */
  mcp?: McpFactoryOptions;
};

/**
 * What `forRootAsync` takes: the options that shape the module before DI runs (the whole `mcp`
 * may be given here too), and `useFactory`, `useClass` or `useExisting` for the others.
 */
export type ToolsModuleAsyncOptions = ToolsModuleStaticOptions &
  ConfigurableModuleAsyncOptions<ToolsModuleFactoryOptions, 'createToolsOptions'>;
