export { createMcpHttpHandler } from './http-handler.js';
export type { McpHttpHandlerOptions, McpRequestListener } from './http-handler.js';
export { serveStdio } from './serve-stdio.js';
export type { ServeStdioOptions } from './serve-stdio.js';
export type { McpAuthOptions } from './auth/bearer-auth.js';
