import { ToolsConfigurationError } from '../../core/errors.js';
import { MESSAGES } from '../tools.messages.js';
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
  /**
   * More MCP servers in the same application, each at its own `path` with its own `select`,
   * `serverInfo`, `instructions` and `auth`. Each takes the options of `mcp` it does not set
   * itself, but `select`. Every endpoint calls through the one runner, so the in-process
   * `ToolInvoker` still sees every tool, and a tool may be on several endpoints. Given to
   * `forRootAsync` directly; its factory's `mcp` reaches them as inherited options, and its
   * `mcp.endpoints` (each named by its `path`) set their own.
   *
   * @example
   * ToolsModule.forRoot({
   *   registry,
   *   mcp: {
   *     select: { exclude: ['admin_reindex'] },
   *     endpoints: [
   *       {
   *         path: '/admin/mcp',
   *         select: { classes: [AdminTools] },
   *         serverInfo: { name: 'admin', version: '1.0.0' },
   *       },
   *     ],
   *   },
   * });
   */
  endpoints?: readonly McpExtraEndpointOptions[];
}

/**
 * One more MCP server of the application (`mcp.endpoints`): its route, and the endpoint options
 * it sets itself; the others are those of `mcp`.
 */
export interface McpExtraEndpointOptions extends Omit<
  McpOptions,
  'path' | 'endpoints' | 'busRequired'
> {
  /** The route, without the global prefix; with `mount: false`, your controller's route. */
  path: string;
}

/**
 * The `mcp` options that shape the module's routes, so are known when it is defined:
 * `forRootAsync` takes them directly, never from its factory.
 */
export const MCP_ROUTING_OPTIONS = ['mount', 'path'] as const;

/**
 * The `mcp` options `forRootAsync`'s factory may return: all but the routing (`mount`, `path`),
 * and for each endpoint given to `forRootAsync` directly, named by its `path`, its own options.
 */
export type McpFactoryOptions = Omit<
  McpOptions,
  (typeof MCP_ROUTING_OPTIONS)[number] | 'endpoints'
> & {
  /** Options of endpoints of `mcp.endpoints`, each named by its `path`, laid over its own. */
  endpoints?: readonly Omit<McpExtraEndpointOptions, 'mount'>[];
};

/** The MCP options with every default filled in. */
export type ResolvedMcpOptions = ResolvedMcpEndpointOptions & {
  mount: boolean;
  path: string;
  rawBody: boolean;
  busRequired: boolean;
  /** The endpoints of `mcp.endpoints`, each with what it inherits filled in. */
  endpoints: readonly ResolvedMcpOptions[];
};

/** `/a/b` from `a/b`, `/a/b/` or `/A/b`: how two paths are told apart. */
function pathKey(path: string): string {
  return `/${path.replace(/^\/+|\/+$/g, '')}`.toLowerCase();
}

/** The module's MCP options with every default filled in; `false` means "do not mount". */
export function resolveMcpOptions(mcp: McpOptions | false | undefined): ResolvedMcpOptions {
  const { endpoints = [], ...options } = mcp === false ? { mount: false } : (mcp ?? {});
  const main = resolveOne(options);
  if (!Array.isArray(endpoints)) {
    throw new ToolsConfigurationError(MESSAGES.endpointsNotList(endpoints));
  }
  // An endpoint chooses its own tools and is mounted unless it says otherwise.
  const { select: _select, mount: _mount, ...inherited } = options;
  const taken = new Map([[pathKey(main.path), 'mcp']]);
  const extras = endpoints.map((endpoint: McpExtraEndpointOptions, index) => {
    const where = `mcp.endpoints[${index}]`;
    if (typeof endpoint?.path !== 'string' || endpoint.path === '') {
      throw new ToolsConfigurationError(MESSAGES.endpointPath(where));
    }
    const other = taken.get(pathKey(endpoint.path));
    if (other)
      throw new ToolsConfigurationError(MESSAGES.endpointPathTaken(where, other, endpoint.path));
    taken.set(pathKey(endpoint.path), where);
    const given = Object.entries(endpoint).filter(([, value]) => value !== undefined);
    return resolveOne({ ...inherited, ...Object.fromEntries(given) });
  });
  return Object.freeze({ ...main, endpoints: Object.freeze(extras) });
}

function resolveOne(options: Omit<McpOptions, 'endpoints'>): ResolvedMcpOptions {
  return Object.freeze({
    mount: options.mount ?? true,
    path: options.path ?? '/mcp',
    rawBody: options.rawBody ?? false,
    busRequired: options.busRequired ?? false,
    ...resolveMcpEndpointOptions(options),
    endpoints: [],
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
  const { endpoints: laid = [], ...rest } = fromFactory;
  const defined = (options: object) =>
    Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const own = fixed === false ? [] : (fixed?.endpoints ?? []);
  laid.forEach((endpoint, index) => {
    if ((endpoint as { mount?: unknown }).mount !== undefined) {
      throw new ToolsConfigurationError(
        MESSAGES.staticFromFactory([`mcp.endpoints[${index}].mount`]),
      );
    }
    if (!own.some(({ path }) => pathKey(path) === pathKey(String(endpoint?.path)))) {
      const paths = own.map(({ path }) => path);
      throw new ToolsConfigurationError(MESSAGES.factoryEndpoint(index, endpoint?.path, paths));
    }
  });
  const endpoints = own.map((endpoint) => {
    const over = laid.find(({ path }) => pathKey(path) === pathKey(endpoint.path));
    return over ? { ...endpoint, ...defined(over), path: endpoint.path } : endpoint;
  });
  return resolveMcpOptions({
    ...(fixed === false ? { mount: false } : fixed),
    ...defined(rest),
    ...(own.length > 0 && { endpoints }),
  });
}
