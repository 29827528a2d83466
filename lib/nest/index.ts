export * from './decorators/index.js';
export * from './interfaces/tools-module-options.interface.js';
export { mapHttpException } from './http-exception.mapper.js';
export { ToolRequestContext, ToolRequestMiddleware } from './request-context.js';
export { ToolEvents } from './tool-events.service.js';
export { ToolInvoker } from './tool-invoker.service.js';
export { ToolsModule } from './tools.module.js';
export { TOOLS_MODULE_OPTIONS } from './tools.constants.js';
export { ToolsConfigurationError } from './tools.messages.js';
