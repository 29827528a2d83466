// The health checks' public names; lib/nest/index.ts re-exports them.
export { ToolsHealthModule } from './tools-health.module.js';
export { ToolsHealthIndicator } from './tools-health.indicator.js';
export type { ToolsHealthIndicatorResult, ToolsHealthOptions } from './health.types.js';
