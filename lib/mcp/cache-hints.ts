import type { CacheHint, CacheScope } from '@modelcontextprotocol/server';
import { ToolsConfigurationError } from '../core/errors.js';
import type { ListMethod } from './answer-writer.js';
import { MCP_MESSAGES } from './mcp.messages.js';

/** The lists whose 2026-07-28 results carry cache hints, by the key of their result's list. */
export type McpCachedList = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/**
 * The cache hints of each list on the 2026-07-28 era (`ttlMs`, `cacheScope` of the SDK's
 * `CacheHint`): how long a client may keep the list, and whether a cache shared between users
 * may keep it. A list or field left out keeps the SDK's default, `ttlMs: 0` and
 * `cacheScope: 'private'`. The 2025 revisions carry no cache hints.
 */
export type McpCacheHints = { readonly [list in McpCachedList]?: CacheHint };

/** The cache fields a cacheable 2026-era result gets. */
export interface CacheFields {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** The list of each list method, as {@link McpCacheHints} names it. */
const LISTS: Readonly<Record<ListMethod, McpCachedList>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

const HINT_KEYS: ReadonlySet<string> = new Set(['ttlMs', 'cacheScope']);

/** What a cacheable result gets when nothing is configured: the SDK's own defaults. */
const DEFAULT_FIELDS: CacheFields = Object.freeze({ ttlMs: 0, cacheScope: 'private' });

/**
 * Checks the `cacheHints` option and returns it frozen (`{}` when absent): every key a list,
 * every hint an object of `ttlMs` (a whole number of milliseconds, 0 or more) and `cacheScope`
 * (`'public'` or `'private'`). Anything else is a `ToolsConfigurationError` naming the fix.
 */
export function resolveCacheHints(hints: McpCacheHints | undefined): McpCacheHints {
  if (hints === undefined) return Object.freeze({});
  if (!isObject(hints)) throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintsNotObject(hints));
  const lists: ReadonlySet<string> = new Set(Object.values(LISTS));
  const resolved: Partial<Record<McpCachedList, CacheHint>> = {};
  for (const [list, hint] of Object.entries(hints)) {
    if (!lists.has(list)) throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintList(list));
    if (hint === undefined) continue;
    if (!isObject(hint)) {
      throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintNotObject(list, hint));
    }
    for (const key of Object.keys(hint)) {
      if (!HINT_KEYS.has(key))
        throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintKey(list, key));
    }
    const { ttlMs, cacheScope } = hint as CacheHint;
    if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 0)) {
      throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintTtl(list, ttlMs));
    }
    if (cacheScope !== undefined && cacheScope !== 'public' && cacheScope !== 'private') {
      throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintScope(list, cacheScope));
    }
    resolved[list as McpCachedList] = Object.freeze({
      ...(ttlMs !== undefined && { ttlMs }),
      ...(cacheScope !== undefined && { cacheScope }),
    });
  }
  return Object.freeze(resolved);
}

/**
 * Refuses a `cacheScope: 'public'` on a list that depends on the caller (something in it
 * requires scopes or has a guard with `canList`): a cache shared between users would serve one
 * caller's list to another.
 */
export function refusePublicCallerLists(
  hints: McpCacheHints | undefined,
  perCaller: Readonly<Record<McpCachedList, boolean>>,
): void {
  for (const list of Object.values(LISTS)) {
    if (perCaller[list] && hints?.[list]?.cacheScope === 'public') {
      throw new ToolsConfigurationError(MCP_MESSAGES.cacheHintPublicPerCaller(list));
    }
  }
}

/**
 * The `cacheHints` server option of the SDK for the configured hints, keyed by method, or
 * `undefined` when none is configured (the SDK then fills its defaults itself).
 */
export function sdkCacheHints(
  hints: McpCacheHints | undefined,
): Partial<Record<ListMethod, CacheHint>> | undefined {
  const byMethod: Partial<Record<ListMethod, CacheHint>> = {};
  for (const [method, list] of Object.entries(LISTS) as Array<[ListMethod, McpCachedList]>) {
    const hint = hints?.[list];
    if (hint !== undefined) byMethod[method] = hint;
  }
  return Object.keys(byMethod).length > 0 ? byMethod : undefined;
}

/**
 * The cache fields the SDK's 2026-era encoding puts on a result of `method` with these hints:
 * a configured list's, field by field over the defaults; the defaults for `resources/read`;
 * `undefined` for a method whose results are not cacheable.
 */
export function cacheFieldsOf(
  hints: McpCacheHints | undefined,
  method: string,
): CacheFields | undefined {
  if (method === 'resources/read') return DEFAULT_FIELDS;
  if (!Object.hasOwn(LISTS, method)) return undefined;
  const hint = hints?.[LISTS[method as ListMethod]];
  if (hint === undefined) return DEFAULT_FIELDS;
  return {
    ttlMs: hint.ttlMs ?? DEFAULT_FIELDS.ttlMs,
    cacheScope: hint.cacheScope ?? DEFAULT_FIELDS.cacheScope,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
