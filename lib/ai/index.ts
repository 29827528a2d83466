export { createAgentTools, type AgentToolsOptions } from './create-agent-tools.js';
export { AgentToolError } from './agent-tool-error.js';
