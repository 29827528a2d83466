import { ConfigurableModuleBuilder } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ToolsConfigurationError } from '../core/errors.js';
import { declaredNames, resolveTools } from '../core/registry.js';
import type {
  ToolsModuleExtras,
  ToolsModuleOptions,
} from './interfaces/tools-module-options.interface.js';
import { McpBearerAuth, type McpAuthOptions } from '../mcp/auth/bearer-auth.js';
import { MCP_AUTH } from './mcp/mcp-auth.js';
import { MCP_OPTIONS } from './mcp/mcp.constants.js';
import { mcpController } from './mcp/mcp-endpoint.controller.js';
import { resolveMcpOptions } from './mcp/mcp-options.js';
import { ToolErrorFilter } from './tool-error.filter.js';
import {
  TOOLS_DECLARED,
  TOOLS_MODULE_OPTIONS,
  TOOLS_MOUNT_MIDDLEWARE,
  TOOLS_REGISTRY,
} from './tools.constants.js';

export const {
  ConfigurableModuleClass: ConfigurableToolsModule,
  OPTIONS_TYPE: TOOLS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: TOOLS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ToolsModuleOptions>({
  moduleName: 'Tools',
  optionsInjectionToken: TOOLS_MODULE_OPTIONS,
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createToolsOptions')
  .setExtras<ToolsModuleExtras>(
    {
      registry: undefined as never,
      isGlobal: true,
      mountMiddleware: true,
      mcp: undefined,
      toolErrorFilter: true,
    },
    (definition, extras) => {
      if (extras.registry === undefined) {
        throw new ToolsConfigurationError(
          'ToolsModule.forRoot needs a registry: ToolsModule.forRoot(defineToolRegistry({ defaults: [...] })) ' +
            'or ToolsModule.forRoot({ registry, ... }).',
        );
      }
      const mcp = resolveMcpOptions(extras.mcp);
      return {
        ...definition,
        global: extras.isGlobal,
        controllers: mcp.mount ? [mcpController(mcp.path)] : [],
        providers: [
          { provide: MCP_OPTIONS, useValue: mcp },
          {
            provide: MCP_AUTH,
            useFactory: (options: ToolsModuleOptions) => mcpAuth(mcp.auth, options.mcpAuth),
            inject: [TOOLS_MODULE_OPTIONS],
          },
          ...(definition.providers ?? []),
          // Resolved here so duplicate names fail while the module is being defined.
          { provide: TOOLS_REGISTRY, useValue: resolveTools(extras.registry) },
          { provide: TOOLS_DECLARED, useValue: declaredNames(extras.registry) },
          { provide: TOOLS_MOUNT_MIDDLEWARE, useValue: extras.mountMiddleware },
          ...(extras.toolErrorFilter ? [{ provide: APP_FILTER, useClass: ToolErrorFilter }] : []),
        ],
      };
    },
  )
  .build();

/**
 * The MCP endpoint's sign-in, from `mcp.auth` (`forRoot`) or `mcpAuth` (the options `forRootAsync`
 * resolves, say from `ConfigService`). Built at bootstrap, so a wrong setting fails it.
 */
function mcpAuth(fixed?: McpAuthOptions, resolved?: McpAuthOptions): McpBearerAuth | null {
  if (fixed && resolved) {
    throw new ToolsConfigurationError(
      'ToolsModule: set the MCP sign-in once, in mcp.auth or in mcpAuth, not in both.',
    );
  }
  const auth = fixed ?? resolved;
  return auth ? new McpBearerAuth(auth) : null;
}
