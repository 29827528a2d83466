import type { INestApplicationContext } from '@nestjs/common';
import type { StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { catalogInvoker } from '../../core/catalog-invoker.js';
import { selectedInvoker } from '../../mcp/endpoint-selection.js';
import { serveInvokerStdio, type ServeStdioOptions } from '../../mcp/serve-stdio.js';
import { ToolInvoker } from '../tool-invoker.service.js';
import { MCP_OPTIONS } from './mcp.constants.js';
import type { ResolvedMcpOptions } from './mcp-options.js';

/** Options of {@link serveAppStdio}: the endpoint's own come from `ToolsModule`'s `mcp`. */
export type ServeAppStdioOptions = Pick<ServeStdioOptions, 'context' | 'transport'>;

/**
 * Serves the application's MCP tools over stdio, for local clients that start the server as a
 * child process. Both protocol eras; calls run through the same runner with `source: 'mcp'`.
 * It serves what `mcp` serves (its `select`, `serverInfo`, `instructions`). Nothing else may
 * write to stdout: create the context with `StderrLogger`.
 *
 * @example
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrLogger() });
 * serveAppStdio(app, { context: { tenantId: 'local' } });
 */
export function serveAppStdio(
  app: INestApplicationContext,
  options: ServeAppStdioOptions = {},
): StdioServerHandle {
  const invoker = app.get(ToolInvoker, { strict: false });
  const mcp = app.get<ResolvedMcpOptions>(MCP_OPTIONS, { strict: false });
  const served = mcp.select ? selectedInvoker(catalogInvoker(invoker), mcp.select, 'mcp') : invoker;
  return serveInvokerStdio(served, mcp, options);
}
