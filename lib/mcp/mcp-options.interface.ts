/** Which MCP protocol eras the endpoint serves. */
export type McpProtocolMode = 'dual' | 'modern' | 'legacy';

/**
 * Options of the MCP endpoint (`ToolsModule.forRoot({ mcp })`). Decided before DI runs.
 *
 * @example
 * ToolsModule.forRoot({ registry, mcp: { path: '/mcp', serverInfo: { name: 'billing', version: '1.0.0' } } })
 */
export interface McpOptions {
  /** Mount the endpoint controller. `false` when the application extends `McpEndpoint` itself. @default true */
  mount?: boolean;
  /**
   * The route of the mounted endpoint. With `mount: false`, set it to your own controller's route
   * so malformed or oversized bodies there are still answered with JSON-RPC errors. @default '/mcp'
   */
  path?: string;
  /** What the server tells clients about itself. @default { name: 'toolwright', version: '0.1.0' } */
  serverInfo?: { name: string; version: string; title?: string };
  /** Instructions for clients, returned at initialization. */
  instructions?: string;
  /**
   * Host header names accepted (DNS-rebinding protection). `false` turns the check off, for
   * deployments behind a proxy that checks it. @default loopback names
   */
  allowedHosts?: readonly string[] | false;
  /** Origin host names accepted from browsers. `false` turns the check off. @default loopback names */
  allowedOrigins?: readonly string[] | false;
  /** Larger request bodies are answered `413`. @default 4 MiB */
  maxBodyBytes?: number;
  /**
   * `dual` serves the 2026-07-28 revision and the 2025 revisions (statelessly); `modern` only
   * the 2026-07-28 revision; `legacy` only the 2025 revisions. @default 'dual'
   */
  protocol?: McpProtocolMode;
  /**
   * Answer `tools/list` and plain `tools/call` requests without building an SDK server for each
   * request (the answers are the same; the tests compare both paths). Turn off to route every
   * request through the SDK. @default true
   */
  directAnswers?: boolean;
}

/** The MCP options with every default filled in. */
export type ResolvedMcpOptions = Required<Omit<McpOptions, 'instructions'>> & {
  instructions?: string;
};
