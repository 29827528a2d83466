import {
  Inject,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import {
  ApplicationConfig,
  DiscoveryModule,
  DiscoveryService,
  HttpAdapterHost,
} from '@nestjs/core';
import type { ToolCollection } from '../core/registry.js';
import { installMcpBodyHandling, type BodyHandlingAdapter } from './mcp/body-errors.js';
import { installMcpAuth } from './mcp/mcp-auth.js';
import { MCP_ENDPOINTS, type McpEndpointSetup } from './mcp/mcp-endpoints.js';
import { McpRoute, mcpRoutePaths } from './mcp/mcp-route.js';
import { McpService } from './mcp/mcp.service.js';
import {
  captureRequests,
  linkRequests,
  ToolRequestContext,
  ToolRequestMiddleware,
} from './request-context.js';
import { ToolEvents } from './tool-events.service.js';
import { ToolInvoker } from './tool-invoker.service.js';
import { TOOLS_MODULE_OPTIONS, TOOLS_MOUNT_MIDDLEWARE } from './tools.constants.js';
import { ToolsExplorer } from './tools.explorer.js';
import { ConfigurableToolsModule, defineToolsModule } from './tools.module-definition.js';
import type {
  ToolsModuleAsyncOptions,
  ToolsModuleOptions,
} from './interfaces/tools-module-options.interface.js';

function isCollection(value: unknown): value is ToolCollection {
  return (
    Array.isArray(value) ||
    typeof (value as { build?: unknown })?.build === 'function' ||
    Array.isArray((value as { tools?: unknown })?.tools)
  );
}

/**
 * Mounts the application's tools: compiles the registry at bootstrap, binds `@Tool` methods to
 * the container's instances, captures the current request for context, and provides
 * `ToolInvoker` and `ToolEvents`. Global by default.
 *
 * @example
 * @Module({
 *   imports: [
 *     BillingModule,
 *     ToolsModule.forRoot({
 *       registry: defineToolRegistry({ defaults: [InvoiceTools, pingTool] }),
 *       context: (req) => ({ tenantId: req.headers['x-tenant-id'], userId: req.user?.sub }),
 *     }),
 *   ],
 * })
 * export class AppModule {}
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    ToolRequestContext,
    ToolRequestMiddleware,
    ToolEvents,
    ToolsExplorer,
    ToolInvoker,
    McpService,
  ],
  exports: [ToolInvoker, ToolEvents, ToolRequestContext, McpService, TOOLS_MODULE_OPTIONS],
})
export class ToolsModule extends ConfigurableToolsModule implements NestModule {
  constructor(
    @Inject(TOOLS_MOUNT_MIDDLEWARE) private readonly mountMiddleware: boolean,
    @Inject(MCP_ENDPOINTS) private readonly endpoints: readonly McpEndpointSetup[],
    @Inject(McpService) private readonly mcpService: McpService,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(ToolRequestContext) private readonly requestContext: ToolRequestContext,
    @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost,
    @Optional() @Inject(ApplicationConfig) private readonly appConfig?: ApplicationConfig,
  ) {
    super();
  }

  /**
   * Mounts a registry (or a list of tools), or takes the full options.
   *
   * @example
   * ToolsModule.forRoot(registry);
   * ToolsModule.forRoot({
   *   registry,
   *   context: (req) => ({ tenantId: req.headers['x-tenant-id'] }),
   *   logCalls: true,
   * });
   */
  static forRoot(options: ToolCollection | ToolsModuleOptions): DynamicModule {
    return defineToolsModule(this, {
      options: isCollection(options) ? { registry: options } : options,
    });
  }

  /**
   * Takes the options that may come from DI from a factory or class. `registry`, `isGlobal`,
   * `mountMiddleware`, `toolErrorFilter` and the MCP route (`mcp.mount`, `mcp.path`) are given
   * directly, because they shape the module before DI runs; the factory returning one of them
   * fails the bootstrap. The factory's `mcp` is laid over the `mcp` given directly, field by field.
   *
   * @example
   * ToolsModule.forRootAsync({
   *   registry,
   *   mcp: { path: '/mcp' },
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({
   *     logCalls: config.get('LOG_TOOL_CALLS') === 'true',
   *     mcp: { requestState: { key: config.getOrThrow('MCP_STATE_KEY') } },
   *   }),
   * });
   */
  static forRootAsync(options: ToolsModuleAsyncOptions): DynamicModule {
    return defineToolsModule(this, { asyncOptions: options });
  }

  configure(consumer: MiddlewareConsumer): void {
    // configure() runs after Nest's body parsers are installed and before its routes and
    // exception handler, which is where the MCP route's body limit and body errors are set up.
    // The global prefix and versioning are final by now.
    const adapter: BodyHandlingAdapter | undefined = this.adapterHost?.httpAdapter;
    // With `mount: false` the path still names the application's own MCP route.
    if (adapter) {
      const controllers = this.discovery.getControllers().map((wrapper) => wrapper.metatype);
      const routes = this.endpoints.map(({ options, auth }) => {
        const route = new McpRoute(
          mcpRoutePaths(options.path, this.appConfig, controllers),
          adapter.getRouteMatchingOptions?.(),
        );
        installMcpBodyHandling(adapter, route, options);
        // After the body handling: its middleware is moved ahead of the JSON parsers it placed.
        if (auth) installMcpAuth(adapter, route, auth);
        return route;
      });
      this.mcpService.useRoutes(routes);
    }
    if (!this.mountMiddleware) {
      if (adapter) linkRequests(adapter);
    } else if (!(adapter && captureRequests(adapter, this.requestContext))) {
      consumer.apply(ToolRequestMiddleware).forRoutes('*path');
    }
  }
}
