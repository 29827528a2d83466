import type { INestApplicationContext } from '@nestjs/common';
import {
  serveStdio as serveSdkStdio,
  type StdioServerHandle,
} from '@modelcontextprotocol/server/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import type { ToolContext } from '../core/types.js';
import { ToolInvoker } from '../nest/tool-invoker.service.js';
import type { ResolvedMcpOptions } from './mcp-options.interface.js';
import { MCP_OPTIONS } from './mcp.constants.js';
import { createMcpServerFactory } from './mcp-server.factory.js';

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  /** The context of every call: there is no HTTP request to resolve one from. */
  context?: ToolContext;
  /** Another transport than the process's stdin and stdout (a socket, a test pipe). */
  transport?: Transport;
}

/**
 * Serves the application's MCP tools over stdio, for local clients that start the server as a
 * child process. Both protocol eras; calls run through the same runner with `source: 'mcp'`.
 * Nothing else may write to stdout: create the context with `StderrLogger`.
 *
 * @example
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrLogger() });
 * serveStdio(app, { context: { tenantId: 'local' } });
 */
export function serveStdio(
  app: INestApplicationContext,
  options: ServeStdioOptions = {},
): StdioServerHandle {
  const invoker = app.get(ToolInvoker, { strict: false });
  const mcp = app.get<ResolvedMcpOptions>(MCP_OPTIONS, { strict: false });
  const logger = { error: (message: string, error?: unknown) => console.error(message, error) };
  return serveSdkStdio(
    createMcpServerFactory({ invoker, options: mcp, logger, context: options.context }),
    {
      ...(options.transport && { transport: options.transport }),
      legacy: mcp.protocol === 'modern' ? 'reject' : 'serve',
    },
  );
}
