export { createMcpHttpHandler } from './http-handler.js';
export type { McpHttpHandlerOptions, McpRequestListener } from './http-handler.js';
export { serveStdio } from './serve-stdio.js';
export type { ServeStdioOptions } from './serve-stdio.js';
export type { McpEndpointOptions, McpProtocolMode } from './endpoint-options.js';
export type { McpAuthOptions } from './auth/bearer-auth.js';
export type { JwtVerification } from './auth/jwt-verifier.js';
export type { McpTaskOptions } from './tasks.js';
