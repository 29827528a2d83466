export * from './core/index.js';
export * from './nest/index.js';
export * from './mcp/index.js';
export * from './cli/index.js';
// The injectable class is the public ToolInvoker; it implements the core interface of that name.
export { ToolInvoker } from './nest/index.js';
