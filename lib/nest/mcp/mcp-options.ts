import {
  resolveMcpEndpointOptions,
  type McpEndpointOptions,
  type ResolvedMcpEndpointOptions,
} from '../../mcp/endpoint-options.js';

/**
 * Options of the MCP endpoint (`ToolsModule.forRoot({ mcp })`). Decided before DI runs.
 *
 * @example
 * ToolsModule.forRoot({ registry, mcp: { path: '/mcp', serverInfo: { name: 'billing', version: '1.0.0' } } })
 */
export interface McpOptions extends McpEndpointOptions {
  /** Mount the endpoint controller. `false` when the application extends `McpEndpoint` itself. @default true */
  mount?: boolean;
  /**
   * The route of the mounted endpoint. With `mount: false`, set it to your own controller's route
   * so malformed or oversized bodies there are still answered with JSON-RPC errors. @default '/mcp'
   */
  path?: string;
}

/** The MCP options with every default filled in. */
export type ResolvedMcpOptions = ResolvedMcpEndpointOptions & { mount: boolean; path: string };

/** The module's MCP options with every default filled in; `false` means "do not mount". */
export function resolveMcpOptions(mcp: McpOptions | false | undefined): ResolvedMcpOptions {
  const options = mcp === false ? { mount: false } : (mcp ?? {});
  return Object.freeze({
    mount: options.mount ?? true,
    path: options.path ?? '/mcp',
    ...resolveMcpEndpointOptions(options),
  });
}
