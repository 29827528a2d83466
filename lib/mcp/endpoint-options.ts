import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type Implementation,
} from '@modelcontextprotocol/server';
import { identifyByUserOrPrincipal, type IdentifyCaller } from '../core/caller-identity.js';
import { ToolsConfigurationError } from '../core/errors.js';
import { MCP_MESSAGES } from './mcp.messages.js';
import type { InstanceBus } from '../core/instance-bus.js';
import type { McpRequestStateOptions } from './asking.js';
import type { McpTaskOptions } from './tasks.js';
import type { McpAuthOptions } from './auth/bearer-auth.js';
import { resolveCacheHints, type McpCacheHints } from './cache-hints.js';
import type { McpSelection } from './endpoint-selection.js';

/** Which MCP protocol eras the endpoint serves. */
export type McpProtocolMode = 'dual' | 'modern' | 'legacy';

/**
 * How an MCP endpoint answers: over HTTP (`createMcpHttpHandler`, or the Nest module's `mcp`
 * option, which adds `mount` and `path`) and, for `serverInfo`, `instructions` and `protocol`,
 * over stdio.
 */
export interface McpEndpointOptions {
  /**
   * What the server tells clients about itself: the revision's `Implementation`, with a
   * `description`, a `websiteUrl` and `icons` at will. @default { name: 'toolwright', version: '0.1.0' }
   */
  serverInfo?: Implementation;
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
   * Answer `tools/list`, plain `tools/call`, the resources, templates and prompts lists every
   * caller sees, and `resources/read`, without building an SDK server for each request, where
   * the answer is exactly the SDK's (a property test compares both paths). Turn off to route
   * every request through the SDK. @default true
   */
  directAnswers?: boolean;
  /**
   * The cache hints of each list on the 2026-07-28 era (`ttlMs`, `cacheScope`), keyed `tools`,
   * `resources`, `resourceTemplates` and `prompts`; a list or field left out keeps `ttlMs: 0`
   * and `cacheScope: 'private'`. `'public'` is refused on a list that depends on the caller
   * (something in it requires scopes or has a guard with `canList`).
   * @default {}
   */
  cacheHints?: McpCacheHints;
  /**
   * Sign callers in with OAuth bearer tokens (the endpoint is then a protected resource, see
   * {@link McpAuthOptions}). Without it, the endpoint answers whoever may reach it. With it,
   * every tool's listing says `oauth2` in `_meta.securitySchemes`, with the scopes a call needs.
   */
  auth?: McpAuthOptions;
  /**
   * How the questions of a tool that asks (`asks`) travel on the 2026-07-28 era: the key that
   * seals the `requestState` carried from one round to the next, shared by every instance, and
   * how long an answer may take. Without a key, each process makes its own (one instance only).
   *
   * @example
   * createMcpHttpHandler(invoker, { requestState: { key: process.env.MCP_STATE_KEY } });
   */
  requestState?: McpRequestStateOptions;
  /**
   * What crosses instances behind a load balancer: a 2025-era client's cancellation and its
   * answer to a question, each a POST of its own that may reach another instance than the
   * call, and which clients declared elicitation. One process needs none (the default keeps
   * it in memory); several instances share one, e.g. `RedisInstanceBus` from `toolwright/redis`.
   *
   * @example
   * const redis = new Redis(process.env.REDIS_URL!);
   * redis.on('error', (error) => console.warn(`Redis: ${error.message}`));
   * createMcpHttpHandler(invoker, { bus: new RedisInstanceBus({ redis }) });
   */
  bus?: InstanceBus;
  /**
   * Where and how long the tasks of tools that declare `task` are kept, and how often clients
   * should poll. Several instances share one store (`RedisTaskStore` from `toolwright/redis`)
   * and one bus.
   *
   * @example
   * createMcpHttpHandler(invoker, {
   *   tasks: { store: new RedisTaskStore({ redis }) },
   *   bus: new RedisInstanceBus({ redis }),
   * });
   */
  tasks?: McpTaskOptions;
  /**
   * Who is calling, when not signed in with `auth` (a signed-in caller is its token's issuer,
   * subject and client), for what outlives one request: the tasks a caller created (only that caller
   * sees them), a 2025-era client's cancellations, its answers to questions and its declared
   * capabilities (each a request of its own, perhaps on another instance), and the binding of a
   * 2026-era `requestState`. A request that names nobody gets no task and none of that 2025-era
   * state (a clear error says to set this option or `auth`), never a bucket shared with other
   * anonymous callers. The network address is never used.
   * @default the `id`, `sub` or `userId` of `request.user`, else the principal the context
   * resolver put in the request's context (`identifyByUserOrPrincipal`)
   */
  identify?: IdentifyCaller;
  /**
   * Serve only part of the application's tools, resources and prompts on this endpoint (by name,
   * class or service); the in-process invoker still runs them all. @default everything
   *
   * @example
   * createMcpHttpHandler(invoker, { select: { services: ['billing'] } });
   */
  select?: McpSelection;
}

/** The endpoint options with every default filled in. */
export type ResolvedMcpEndpointOptions = Required<
  Omit<McpEndpointOptions, 'instructions' | 'auth' | 'requestState' | 'bus' | 'tasks' | 'select'>
> & {
  select?: McpSelection;
  instructions?: string;
  auth?: McpAuthOptions;
  requestState?: McpRequestStateOptions;
  bus?: InstanceBus;
  tasks?: McpTaskOptions;
};

/** Fills in the defaults of the endpoint options, refusing values that cannot work. */
export function resolveMcpEndpointOptions(
  options: McpEndpointOptions = {},
): ResolvedMcpEndpointOptions {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw new ToolsConfigurationError(MCP_MESSAGES.maxBodyBytes(options.maxBodyBytes));
  }
  const protocol = options.protocol ?? 'dual';
  if (!['dual', 'modern', 'legacy'].includes(protocol)) {
    throw new ToolsConfigurationError(MCP_MESSAGES.protocol(protocol));
  }
  return Object.freeze({
    serverInfo: options.serverInfo ?? { name: 'toolwright', version: '0.1.0' },
    ...(options.instructions !== undefined && { instructions: options.instructions }),
    ...(options.auth !== undefined && { auth: options.auth }),
    ...(options.requestState !== undefined && { requestState: options.requestState }),
    ...(options.bus !== undefined && { bus: options.bus }),
    ...(options.tasks !== undefined && { tasks: options.tasks }),
    ...(options.select !== undefined && { select: options.select }),
    allowedHosts: options.allowedHosts ?? localhostAllowedHostnames(),
    allowedOrigins: options.allowedOrigins ?? localhostAllowedOrigins(),
    maxBodyBytes,
    protocol,
    directAnswers: options.directAnswers ?? true,
    cacheHints: resolveCacheHints(options.cacheHints),
    identify: options.identify ?? identifyByUserOrPrincipal,
  });
}
