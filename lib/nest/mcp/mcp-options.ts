import {
  resolveMcpEndpointOptions,
  type McpEndpointOptions,
  type ResolvedMcpEndpointOptions,
} from '../../mcp/endpoint-options.js';

/**
 * Options of the MCP endpoint (`ToolsModule.forRoot({ mcp })`). Decided before DI runs.
 *
 * @example
 * ToolsModule.forRoot({
 *   registry,
 *   mcp: { path: '/mcp', serverInfo: { name: 'billing', version: '1.0.0' } },
 * });
 */
export interface McpOptions extends McpEndpointOptions {
  /** Mount the endpoint controller. `false` when the application extends `McpEndpoint` itself. @default true */
  mount?: boolean;
  /**
   * The route of the mounted endpoint. With `mount: false`, set it to your own controller's route
   * so malformed or oversized bodies there are still answered with JSON-RPC errors. @default '/mcp'
   */
  path?: string;
  /**
   * Keep the bytes of an MCP request as `request.rawBody` on Express, as
   * `NestFactory.create(AppModule, { rawBody: true })` does on the application's other routes:
   * for a guard or middleware on the MCP route that verifies a signature over the body. Off by
   * default, because it makes the MCP route's JSON parser decode bodies the slow way (about 5 to
   * 15 % more CPU per answer). On Fastify the application's own `rawBody` setting applies.
   * @default false
   */
  rawBody?: boolean;
  /**
   * Refuse to start when the instance bus (`bus`) cannot be reached at bootstrap:
   * `app.init()` and `app.listen()` reject with a `ToolsConfigurationError`. By default the
   * application starts all the same, logs one error, and subscribes as soon as the bus answers
   * (trying again a second after each failed attempt); meanwhile what must cross instances is
   * refused with a retryable error or not heard, as during an outage after startup.
   * @default false
   *
   * @example
   * ToolsModule.forRoot({
   *   registry,
   *   mcp: { bus: new RedisInstanceBus({ redis }), busRequired: true },
   * });
   */
  busRequired?: boolean;
}

/**
 * The `mcp` options that shape the module's routes, so are known when it is defined:
 * `forRootAsync` takes them directly, never from its factory.
 */
export const MCP_ROUTING_OPTIONS = ['mount', 'path'] as const;

/** The `mcp` options `forRootAsync`'s factory may return: all but the routing (`mount`, `path`). */
export type McpFactoryOptions = Omit<McpOptions, (typeof MCP_ROUTING_OPTIONS)[number]>;

/** The MCP options with every default filled in. */
export type ResolvedMcpOptions = ResolvedMcpEndpointOptions & {
  mount: boolean;
  path: string;
  rawBody: boolean;
  busRequired: boolean;
};

/** The module's MCP options with every default filled in; `false` means "do not mount". */
export function resolveMcpOptions(mcp: McpOptions | false | undefined): ResolvedMcpOptions {
  const options = mcp === false ? { mount: false } : (mcp ?? {});
  return Object.freeze({
    mount: options.mount ?? true,
    path: options.path ?? '/mcp',
    rawBody: options.rawBody ?? false,
    busRequired: options.busRequired ?? false,
    ...resolveMcpEndpointOptions(options),
  });
}

/**
 * The module's MCP options: the static `mcp` with the `mcp` of `forRootAsync`'s factory laid over
 * it, field by field (a field the factory leaves `undefined` keeps the static one).
 */
export function mergeMcpOptions(
  fixed: McpOptions | false | undefined,
  fromFactory: McpFactoryOptions,
): ResolvedMcpOptions {
  const given = Object.entries(fromFactory).filter(([, value]) => value !== undefined);
  return resolveMcpOptions({
    ...(fixed === false ? { mount: false } : fixed),
    ...Object.fromEntries(given),
  });
}
