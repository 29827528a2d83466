import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { declaredNames, resolveTools } from '../core/registry.js';
import type { Class } from '../core/types.js';
import type {
  ToolsModuleAsyncOptions,
  ToolsModuleFactoryOptions,
  ToolsModuleOptions,
  ToolsModuleStaticOptions,
} from './interfaces/tools-module-options.interface.js';
import { McpBearerAuth } from '../mcp/auth/bearer-auth.js';
import { MCP_AUTH } from './mcp/mcp-auth.js';
import { MCP_ENDPOINTS, mcpEndpointSetups } from './mcp/mcp-endpoints.js';
import { MCP_OPTIONS } from './mcp/mcp.constants.js';
import { mcpController } from './mcp/mcp-endpoint.controller.js';
import {
  MCP_ROUTING_OPTIONS,
  mergeMcpOptions,
  resolveMcpOptions,
  type McpOptions,
  type ResolvedMcpOptions,
} from './mcp/mcp-options.js';
import { ToolErrorFilter } from './tool-error.filter.js';
import {
  TOOLS_DECLARED,
  TOOLS_MODULE_OPTIONS,
  TOOLS_MOUNT_MIDDLEWARE,
  TOOLS_REGISTRY,
} from './tools.constants.js';
import { MESSAGES, ToolsConfigurationError } from './tools.messages.js';

/** The options that shape the module before DI runs, with their defaults. */
const STATIC_OPTIONS: ToolsModuleStaticOptions = {
  registry: undefined as never,
  isGlobal: true,
  mountMiddleware: true,
  mcp: undefined,
  toolErrorFilter: true,
};

const { ConfigurableModuleClass } = new ConfigurableModuleBuilder<ToolsModuleFactoryOptions>({
  moduleName: 'Tools',
  optionsInjectionToken: TOOLS_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createToolsOptions')
  .setExtras<ToolsModuleStaticOptions>(STATIC_OPTIONS, (definition, extras) => {
    if (extras.registry === undefined) throw new ToolsConfigurationError(MESSAGES.noRegistry());
    // Resolved here so a wrong static value fails while the module is being defined.
    const mcp = resolveMcpOptions(extras.mcp);
    return {
      ...definition,
      global: extras.isGlobal,
      controllers: [mcp, ...mcp.endpoints]
        .filter((endpoint) => endpoint.mount)
        .map((endpoint) => mcpController(endpoint.path)),
      providers: [
        {
          provide: MCP_OPTIONS,
          useFactory: (options: ToolsModuleFactoryOptions) => mcpOptions(extras.mcp, mcp, options),
          inject: [TOOLS_MODULE_OPTIONS],
        },
        {
          // Built at bootstrap, so a wrong sign-in setting fails it.
          provide: MCP_AUTH,
          useFactory: ({ auth }: ResolvedMcpOptions) => (auth ? new McpBearerAuth(auth) : null),
          inject: [MCP_OPTIONS],
        },
        {
          provide: MCP_ENDPOINTS,
          useFactory: mcpEndpointSetups,
          inject: [MCP_OPTIONS, MCP_AUTH],
        },
        ...(definition.providers ?? []),
        // Resolved here so duplicate names fail while the module is being defined.
        { provide: TOOLS_REGISTRY, useValue: resolveTools(extras.registry) },
        { provide: TOOLS_DECLARED, useValue: declaredNames(extras.registry) },
        { provide: TOOLS_MOUNT_MIDDLEWARE, useValue: extras.mountMiddleware },
        ...(extras.toolErrorFilter ? [{ provide: APP_FILTER, useClass: ToolErrorFilter }] : []),
      ],
    };
  })
  .build();

/**
 * The class the builder made, typed without its static methods: `ToolsModule` declares `forRoot`
 * and `forRootAsync` with its own option types (the builder's cannot tell the static `mcp` from
 * the factory's) and calls the builder's through {@link defineToolsModule}.
 */
export const ConfigurableToolsModule: new () => object = ConfigurableModuleClass;

/** The dynamic module of `forRoot` (`options`) or `forRootAsync` (`asyncOptions`), for `module`. */
export function defineToolsModule(
  module: Class,
  given: { options: ToolsModuleOptions } | { asyncOptions: ToolsModuleAsyncOptions },
): DynamicModule {
  return 'options' in given
    ? ConfigurableModuleClass.forRoot.call(module, given.options as never)
    : ConfigurableModuleClass.forRootAsync.call(module, given.asyncOptions as never);
}

/**
 * The MCP options the module runs with: the static `mcp` (`resolved` from `fixed`), with the `mcp`
 * of `forRootAsync`'s factory laid over it. What the factory gives of the options that shape the
 * module before DI runs is refused. (`forRoot`'s options never get here: the Nest builder leaves
 * the static options, `mcp` included, out of the options it provides.)
 */
function mcpOptions(
  fixed: McpOptions | false | undefined,
  resolved: ResolvedMcpOptions,
  options: ToolsModuleFactoryOptions,
): ResolvedMcpOptions {
  const given = options as Partial<Record<string, unknown>>;
  const fromFactory = given.mcp as McpOptions | false | undefined;
  const misplaced = [
    ...Object.keys(STATIC_OPTIONS).filter((key) => key !== 'mcp' && given[key] !== undefined),
    ...(fromFactory === false ? ['mcp: false'] : []),
    ...MCP_ROUTING_OPTIONS.filter((key) => fromFactory && fromFactory[key] !== undefined).map(
      (key) => `mcp.${key}`,
    ),
  ];
  if (misplaced.length > 0) {
    throw new ToolsConfigurationError(MESSAGES.staticFromFactory(misplaced));
  }
  return fromFactory ? mergeMcpOptions(fixed, fromFactory) : resolved;
}
