// The public surface of `toolwright/core`, listed by name: test/unit/public-surface.spec.ts
// pins the runtime exports, so a change here is deliberate.
export {
  isProgrammingError,
  ToolError,
  ToolsConfigurationError,
  TOOL_ERROR_STATUS,
} from './errors.js';
export type { ErrorMapper, ToolErrorCode, ToolErrorOptions, ValidationIssue } from './errors.js';
export type { ToolErrorEnvelope, ToolFailure, ToolResult } from './result.js';
export { presentationOf } from './presentation.js';
export { defineRuntimeTool } from './runtime-tool.js';
export type {
  McpPresentation,
  RuntimeTool,
  RuntimeToolConfig,
  ToolCall,
  ToolHandler,
  ToolHandlerResult,
  ToolPresenters,
} from './runtime-tool.js';
export { defineResource, defineResourceTemplate, definePrompt } from './operations.js';
export type {
  Completer,
  OperationDescriptor,
  OperationIcon,
  PromptBody,
  PromptConfig,
  PromptGet,
  PromptMessage,
  ResourceBody,
  ResourceCall,
  ResourceConfig,
  ResourceContents,
  ResourceRead,
  ResourceTemplateConfig,
  RuntimeOperation,
} from './operations.js';
export { createRuntimeToolFactory } from './factory.js';
export type {
  FactoryToolConfig,
  RuntimeToolFactory,
  RuntimeToolFactoryOptions,
} from './factory.js';
export type { ToolClassOptions, ToolMethodOptions } from './tool-class.js';
export { defineToolRegistry } from './registry.js';
export type {
  ToolCollection,
  ToolDefinition,
  ToolEntry,
  ToolRegistry,
  ToolRegistryBuilder,
} from './registry.js';
export { createToolInvoker } from './invoker.js';
export type { InvokeOptions, ToolInvoker, ToolInvokerOptions } from './invoker.js';
export type { ToolDescriptor } from './manifest.js';
export type { JsonSchema } from './schema.js';
export type {
  AfterToolCallOptions,
  BeforeToolCallOptions,
  ToolCallEvent,
  ToolErrorHookOptions,
  ToolGuard,
  ToolGuardContext,
  ToolHooks,
  ToolLogger,
  UnexpectedErrorLevel,
} from './hooks.js';
export { currentToolCall } from './call-context.js';
export type { ToolPrincipal } from './principal.js';
export { identifyByUserOrPrincipal, type IdentifyCaller } from './caller-identity.js';
export type {
  ElicitationResult,
  ToolAnswer,
  ToolAsk,
  ToolAsker,
  ToolAsks,
  ToolQuestion,
} from './asking.js';
export type { ToolSpanAttributes, ToolTelemetryOptions } from './telemetry.js';
export type { ToolSelection } from './tool-selection.js';
export type {
  Class,
  ToolAnnotations,
  ToolCallInfo,
  ToolContext,
  ToolIdentity,
  ToolLog,
  ToolLogLevel,
  ToolMethod,
  ToolOperation,
  ToolTaskSupport,
  ToolProgress,
  ToolSource,
  ToolTransport,
} from './types.js';
export { InMemoryInstanceBus } from './instance-bus.js';
export type { InstanceBus } from './instance-bus.js';
export { InMemoryTaskStore } from './task-store.js';
export type { TaskRecord, TaskStatus, TaskStore } from './task-store.js';
