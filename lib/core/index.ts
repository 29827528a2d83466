// The public surface of `toolwright/core`, listed by name: test/unit/public-surface.spec.ts
// pins every exported name (values and types), so a change here is deliberate. A type is
// exported when users write it: what they implement, what a handler's signature or a hook
// names, the options they assemble, and what an exported function returns (so a declaration
// that exports it can name it); what a method hands back is read through inference.
export {
  isProgrammingError,
  ToolError,
  ToolsConfigurationError,
  TOOL_ERROR_STATUS,
} from './errors.js';
export type { ErrorMapper } from './errors.js';
export type { ToolResult } from './result.js';
export { presentationOf } from './presentation.js';
export { defineRuntimeTool } from './runtime-tool.js';
export { withJsonSchema, type JsonSchemaDocument, type ToolSchema } from './schema.js';
export type { RuntimeTool, ToolCall } from './runtime-tool.js';
export { defineResource, defineResourceTemplate, definePrompt } from './operations.js';
export type { PromptMessage, ResourceCall, RuntimeOperation } from './operations.js';
export { createRuntimeToolFactory, type RuntimeToolFactory } from './factory.js';
export { defineToolRegistry, type ToolRegistryBuilder } from './registry.js';
export { createToolInvoker } from './invoker.js';
export type { InvokeOptions, ToolInvoker, ToolInvokerOptions } from './invoker.js';
export type { ToolDescriptor } from './manifest.js';
export type {
  AfterToolCallEvent,
  BeforeToolCallEvent,
  ToolCallEvent,
  ToolErrorEvent,
  ToolGuard,
  ToolGuardContext,
  ToolHooks,
  ToolLogger,
} from './hooks.js';
export { currentToolCall } from './call-context.js';
export type { ToolPrincipal } from './principal.js';
export { identifyByUserOrPrincipal, type IdentifyCaller } from './caller-identity.js';
export type { ToolAnswer, ToolAsk, ToolQuestion } from './asking.js';
export type { ToolCallInfo, ToolContext, ToolTransport } from './types.js';
export { InMemoryInstanceBus } from './instance-bus.js';
export type { InstanceBus } from './instance-bus.js';
export { InMemoryTaskStore } from './task-store.js';
export type { TaskRecord, TaskStore } from './task-store.js';
