import { classifyInboundRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { BoundedMap } from '../core/bounded-map.js';
import type { Era } from './answer-writer.js';
import type { HttpRequestLike } from './http-framing.js';
import { MODERN_PROTOCOL_VERSION } from './protocol-versions.js';

/** How many verdicts of each kind an endpoint remembers before the oldest go. */
const MAX_VERDICTS = 512;

const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';
/** The 2025-era revisions the SDK serves. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/** A verdict given last, with all it was given for (`meta` a JSON copy of `_meta`). */
interface LastVerdict {
  readonly version: string | undefined;
  readonly method: string | undefined;
  readonly name: string | undefined;
  readonly bodyMethod: string;
  readonly meta: unknown;
  readonly era: Era | undefined;
}

/** A request header's value (the first, when repeated). */
export function header(request: HttpRequestLike, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The era of a request the direct path could take, as the SDK's classification routes it, with
 * the classification's verdicts remembered. A plain 2025-era request — no envelope key in
 * `_meta`, no 2026 header, a 2025 protocol version or none — is recognised without running the
 * classification, which is the dearest step of a small call; any other is classified once per
 * envelope and headers. One per endpoint; bounded.
 */
export class EraVerdicts {
  /**
   * The classification's verdicts, by all it reads of a request the direct path could take: the
   * routing headers, the method, and `params._meta`. The rest of such a body (its id, the name
   * or URI, object arguments, nothing else) passes the classification's schemas whatever it
   * holds. Its schemas make the classification the dearest step of a 2026-era call, while a
   * client sends the same envelope with every request.
   */
  private readonly verdicts = new BoundedMap<string, Era | undefined>(MAX_VERDICTS);
  /**
   * The verdict given last, by the tool, resource or method it was given for: a client sends the
   * same envelope with every request, and comparing it with the copy costs less than writing the
   * key of `verdicts`.
   */
  private readonly lastVerdicts = new BoundedMap<string, LastVerdict>(MAX_VERDICTS);

  /**
   * The era of a request whose body is a single JSON-RPC request with `params`; `undefined` for
   * anything the SDK would refuse or route elsewhere.
   */
  eraOf(
    request: HttpRequestLike,
    body: unknown,
    params: { _meta?: Record<string, unknown> },
  ): Era | undefined {
    const version = header(request, 'mcp-protocol-version');
    const method = header(request, 'mcp-method');
    const name = header(request, 'mcp-name');
    const claimless =
      method === undefined &&
      name === undefined &&
      (params._meta === undefined ||
        !Object.keys(params._meta).some((key) => key.startsWith(ENVELOPE_PREFIX)));
    if (claimless && (version === undefined || LEGACY_VERSIONS.has(version))) return 'legacy';
    const bodyMethod = (body as { method: string }).method;
    const last = this.lastVerdicts.get(name ?? bodyMethod);
    if (
      last !== undefined &&
      last.version === version &&
      last.method === method &&
      last.name === name &&
      last.bodyMethod === bodyMethod &&
      sameJson(params._meta, last.meta)
    ) {
      return last.era;
    }
    const meta = metaText(params._meta);
    if (meta === undefined) return classifiedEra(version, method, name, body);
    const key = `${JSON.stringify([version, method, name, bodyMethod])}${meta}`;
    const era = this.verdicts.remember(key, () => classifiedEra(version, method, name, body));
    const copy = meta === '' ? undefined : JSON.parse(meta);
    this.lastVerdicts.set(name ?? bodyMethod, {
      version,
      method,
      name,
      bodyMethod,
      meta: copy,
      era,
    });
    return era;
  }
}

/** The era the SDK's classification gives a request; `undefined` for anything else. */
function classifiedEra(
  version: string | undefined,
  method: string | undefined,
  name: string | undefined,
  body: unknown,
): Era | undefined {
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: name,
    body,
  });
  if (route.kind === 'modern' && route.messageKind === 'request') {
    // A claim of a revision the SDK does not serve is answered with its error.
    return route.classification.revision === MODERN_PROTOCOL_VERSION ? 'modern' : undefined;
  }
  if (route.kind === 'legacy' && route.reason === 'no-claim') {
    return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)
      ? 'legacy'
      : undefined;
  }
  return undefined;
}

/**
 * `_meta` as JSON text for the key of a verdict (`''` for none), or `undefined` (not
 * remembered) when it holds anything JSON text could not (a date a reviver made, `undefined`, a
 * class instance): two such values may write the same JSON and still classify differently.
 */
function metaText(meta: unknown): string | undefined {
  if (meta === undefined) return '';
  return isJsonValue(meta, 0) ? JSON.stringify(meta) : undefined;
}

/**
 * Whether `value` holds what JSON text can and nothing else than `copy` does (a value parsed
 * from JSON text): the same keys, in any order, with the same values.
 */
function sameJson(value: unknown, copy: unknown): boolean {
  // A number of the copy is finite, so NaN is never the same.
  if (typeof copy !== 'object' || copy === null) return value === copy;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(copy)) {
    if (!Array.isArray(value) || value.length !== copy.length) return false;
    // Indexed: a hole reads undefined, which is never the copy's value.
    for (let i = 0; i < copy.length; i++) if (!sameJson(value[i], copy[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(copy, key)) return false;
    if (
      !sameJson((value as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key])
    ) {
      return false;
    }
    keys++;
  }
  for (const _ in copy) keys--;
  return keys === 0;
}

/** Whether `value` holds only what JSON text can, nested at most 16 deep. */
function isJsonValue(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= 16) return false;
  if (Array.isArray(value)) {
    // Indexed, not `every`, which skips the holes JSON text writes as null.
    for (let i = 0; i < value.length; i++) if (!isJsonValue(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!isJsonValue((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
