export * from './mcp-options.interface.js';
export { McpEndpoint } from './mcp.endpoint.js';
export { McpService } from './mcp.service.js';
export { toCallToolResult } from './call-tool-result.js';
export { createMcpServerFactory, toMcpTool } from './mcp-server.factory.js';
export { serveStdio, type ServeStdioOptions } from './serve-stdio.js';
