// The Nest layer's public names; lib/index.ts re-exports them with the core's.
export {
  ToolFactory,
  Tool,
  UseToolGuards,
  Resource,
  ResourceTemplate,
  Prompt,
} from './decorators/index.js';
export type {
  ToolContextResolver,
  ToolsModuleOptions,
  ToolsModuleFactoryOptions,
} from './interfaces/tools-module-options.interface.js';
export { mapHttpException } from './http-exception.mapper.js';
export { ToolRequestContext, ToolRequestMiddleware } from './request-context.js';
export { ToolEvents } from './tool-events.service.js';
export { ToolInvoker } from './tool-invoker.service.js';
export { ToolsModule } from './tools.module.js';
export { StderrLogger } from './stderr.logger.js';
export { ToolErrorFilter } from './tool-error.filter.js';
export { ToolExecutionContext } from './tool-enhancers.js';
export { McpEndpoint } from './mcp/mcp-endpoint.controller.js';
export type { McpOptions } from './mcp/mcp-options.js';
export type { McpAuthOptions } from '../mcp/auth/bearer-auth.js';
export { serveAppStdio } from './mcp/serve-app-stdio.js';
export { runToolsCli } from './cli/run-tools-cli.js';
export type { ToolsCliOptions } from './cli/run-tools-cli.js';
export { ToolsHealthIndicator, ToolsHealthModule } from './health/index.js';
export type { ToolsHealthIndicatorResult, ToolsHealthOptions } from './health/index.js';
