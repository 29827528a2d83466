import { ConfigurableModuleBuilder } from '@nestjs/common';
import { resolveTools } from '../core/registry.js';
import type {
  ToolsModuleExtras,
  ToolsModuleOptions,
} from './interfaces/tools-module-options.interface.js';
import { TOOLS_MOUNT_MIDDLEWARE, TOOLS_REGISTRY } from './tools.constants.js';

export const {
  ConfigurableModuleClass: ConfigurableToolsModule,
  MODULE_OPTIONS_TOKEN: TOOLS_MODULE_OPTIONS,
  OPTIONS_TYPE: TOOLS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: TOOLS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ToolsModuleOptions>({ moduleName: 'Tools' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createToolsOptions')
  .setExtras<ToolsModuleExtras>(
    { registry: undefined as never, isGlobal: true, mountMiddleware: true },
    (definition, extras) => {
      if (extras.registry === undefined) {
        throw new Error(
          'ToolsModule.forRoot needs a registry: ToolsModule.forRoot(defineToolRegistry({ defaults: [...] })) ' +
            'or ToolsModule.forRoot({ registry, ... }).',
        );
      }
      return {
        ...definition,
        global: extras.isGlobal,
        providers: [
          ...(definition.providers ?? []),
          // Resolved here so duplicate names fail while the module is being defined.
          { provide: TOOLS_REGISTRY, useValue: resolveTools(extras.registry) },
          { provide: TOOLS_MOUNT_MIDDLEWARE, useValue: extras.mountMiddleware },
        ],
      };
    },
  )
  .build();
