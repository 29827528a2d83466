import {
  serveStdio as serveSdkStdio,
  StdioServerTransport,
  type StdioServerHandle,
} from '@modelcontextprotocol/server/stdio';
import type { McpServerFactory, Transport } from '@modelcontextprotocol/server';
import type { ToolInvoker } from '../core/invoker.js';
import type { ToolLogger } from '../core/hooks.js';
import type { ToolContext } from '../core/types.js';
import {
  resolveMcpEndpointOptions,
  type McpEndpointOptions,
  type ResolvedMcpEndpointOptions,
} from './endpoint-options.js';
import { PIPE_NETWORK } from './telemetry.js';
import { createMcpServerFactory } from './tool-surface.js';

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions extends Pick<
  McpEndpointOptions,
  'serverInfo' | 'instructions' | 'protocol' | 'cacheHints'
> {
  /** The context of every call: there is no HTTP request to resolve one from. */
  context?: ToolContext;
  /** Another transport than the process's stdin and stdout (a socket, a test pipe). */
  transport?: Transport;
  /** Where failures are reported. Default `console.error` (stderr: stdout carries the protocol). */
  logger?: Pick<ToolLogger, 'error'>;
}

/**
 * Serves an invoker's MCP tools over stdio, for local clients that start the server as a child
 * process. Both protocol eras; calls run through the same runner with `source: 'mcp'`. Nothing
 * else may write to stdout.
 *
 * @example
 * import { createToolInvoker } from 'toolwright/core';
 * import { serveStdio } from 'toolwright/mcp';
 * serveStdio(createToolInvoker([pingTool]), { serverInfo: { name: 'health', version: '1.0.0' } });
 */
export function serveStdio(
  invoker: ToolInvoker,
  options: ServeStdioOptions = {},
): StdioServerHandle {
  return serveInvokerStdio(invoker, resolveMcpEndpointOptions(options), options);
}

/** {@link serveStdio} with resolved endpoint options (the Nest app's, for `serveAppStdio`). */
export function serveInvokerStdio(
  invoker: ToolInvoker,
  endpoint: Pick<
    ResolvedMcpEndpointOptions,
    'serverInfo' | 'instructions' | 'protocol' | 'cacheHints'
  >,
  options: Omit<ServeStdioOptions, keyof McpEndpointOptions> = {},
): StdioServerHandle {
  const logger = options.logger ?? {
    error: (message: string, ...error: unknown[]) => console.error(message, ...error),
  };
  const factory = createMcpServerFactory({
    invoker,
    options: endpoint,
    logger,
    context: options.context,
    network: () => PIPE_NETWORK,
  });
  // The SDK's entry serves a 2026-07-28 opening whatever `legacy` says: a 2025-only server is
  // the 2025-era instance wired to the transport by hand, as the SDK's own legacy arm does.
  if (endpoint.protocol === 'legacy') {
    return serveLegacyStdio(factory, options.transport ?? new StdioServerTransport(), logger);
  }
  return serveSdkStdio(factory, {
    ...(options.transport && { transport: options.transport }),
    legacy: endpoint.protocol === 'modern' ? 'reject' : 'serve',
  });
}

/** One 2025-era server on the transport for the connection's lifetime. */
function serveLegacyStdio(
  factory: McpServerFactory,
  transport: Transport,
  logger: Pick<ToolLogger, 'error'>,
): StdioServerHandle {
  const connected = Promise.resolve(factory({ era: 'legacy' })).then(async (server) => {
    await server.connect(transport);
    return server;
  });
  connected.catch((error: unknown) =>
    logger.error('[toolwright] MCP stdio server could not start:', error),
  );
  return {
    close: async () => {
      const server = await connected.catch(() => undefined);
      await server?.close();
    },
  };
}
