import type { ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from '@modelcontextprotocol/server';
import { declaresTasksIn } from './modern-tasks.js';
import { internalErrorResult } from './call-tool-result.js';
import { BoundedMap } from '../core/bounded-map.js';
import { isThenable } from '../core/maybe-async.js';
import { DisconnectSignal, type HttpRequestLike } from './http-framing.js';
import type { McpCallAnswer, McpCallChannel, McpToolSurface } from './tool-surface.js';
import type { McpOutcome, McpRequestSpan } from './telemetry.js';
import { MODERN_PROTOCOL_VERSION } from './protocol-versions.js';

type Era = 'legacy' | 'modern';

/** The list methods the direct path answers, each with the key of its result's list. */
export const LIST_KEYS = Object.freeze({
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
} as const);
type ListMethod = keyof typeof LIST_KEYS;

function isListMethod(method: unknown): method is ListMethod {
  return typeof method === 'string' && Object.hasOwn(LIST_KEYS, method);
}

interface DirectRequest {
  readonly era: Era;
  readonly id: string | number;
  readonly method: ListMethod | 'tools/call' | 'resources/read';
  readonly params: {
    name?: unknown;
    uri?: unknown;
    arguments?: unknown;
    cursor?: unknown;
    _meta?: Record<string, unknown>;
  };
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

function header(request: HttpRequestLike, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Which requests the endpoint answers itself rather than through a per-request SDK server: a
 * single `tools/list`, or a `tools/call` of a tool whose result needs no era projection, in the
 * plainest form a client sends — no key the SDK would validate or act on beyond the name, object
 * arguments and (on the 2026 era) the envelope, and the routing headers a 2026-era request
 * requires, agreeing with its body. Everything else — errors, other methods, batches,
 * notifications, progress tokens, log levels, anything unusual — goes to the SDK, which stays the
 * reference: test/mcp/direct-vs-sdk.spec.ts sends generated requests both ways and compares.
 */
export function directRequest(
  request: HttpRequestLike,
  body: unknown,
  surface: McpToolSurface,
  protocol: 'dual' | 'modern' | 'legacy',
): DirectRequest | undefined {
  if (!isPlainObject(body) || !hasOnlyKeys(body, MESSAGE_KEYS)) return undefined;
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const method = message.method as DirectRequest['method'];
  if (
    message.jsonrpc !== '2.0' ||
    (method !== 'tools/call' && method !== 'resources/read' && !isListMethod(method))
  ) {
    return undefined;
  }
  // A list of resources, templates or prompts only when every caller sees it whole, and only
  // when the server declares it (the SDK answers -32601 otherwise).
  if (isListMethod(method) && method !== 'tools/list' && !surface.sharedListOf(method)) {
    return undefined;
  }
  // The SDK's request ids: a string, or an integer it can hold exactly.
  if (typeof message.id !== 'string' && !Number.isSafeInteger(message.id)) return undefined;
  const accept = header(request, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return undefined;
  if (!isJsonContentType(header(request, 'content-type'))) return undefined;
  if (header(request, 'mcp-session-id') !== undefined) return undefined;

  const params = (message.params === undefined ? {} : message.params) as DirectRequest['params'];
  if (!isPlainObject(params) || !hasOnlyKeys(params, PARAMS_KEYS[method])) {
    return undefined;
  }
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  if (params._meta !== undefined && !isPlainObject(params._meta)) return undefined;
  const era = eraOf(request, body, params);
  if (era === undefined || (era === 'modern' ? protocol === 'legacy' : protocol === 'modern')) {
    return undefined;
  }
  // `_meta` holds nothing but a 2026-era envelope (which the classification validated): no
  // progress token, log level, related task or other key the SDK reads.
  if (params._meta !== undefined && !hasOnlyKeys(params._meta, META_KEYS[era])) return undefined;
  if (era === 'modern') {
    // The SDK requires these headers on a 2026-era request; the classification compared the
    // version and method ones with the body when present. The name must be the body's, as is.
    if (
      header(request, 'mcp-protocol-version') === undefined ||
      header(request, 'mcp-method') === undefined ||
      (message.method === 'tools/call' && header(request, 'mcp-name') !== params.name) ||
      (message.method === 'resources/read' && header(request, 'mcp-name') !== params.uri)
    ) {
      return undefined;
    }
  }
  if (message.method === 'tools/call') {
    if (typeof params.name !== 'string' || !surface.answersDirectly(params.name)) return undefined;
    // A 2026-era client that declares the tasks extension gets a task of such a tool.
    if (era === 'modern' && surface.runsAsTask(params.name) && declaresTasksIn(params._meta)) {
      return undefined;
    }
  }
  // A read of a URI some resource or template serves (a missing one is the SDK's answer).
  if (message.method === 'resources/read') {
    if (typeof params.uri !== 'string' || !surface.readsDirectly(params.uri)) return undefined;
  }
  return { era, id: message.id as string | number, method, params };
}

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS: Readonly<Record<DirectRequest['method'], ReadonlySet<string>>> = {
  'tools/list': new Set(['_meta']),
  'resources/list': new Set(['_meta']),
  'resources/templates/list': new Set(['_meta']),
  'prompts/list': new Set(['_meta']),
  'tools/call': new Set(['name', 'arguments', '_meta']),
  'resources/read': new Set(['uri', '_meta']),
};
const META_KEYS: Readonly<Record<Era, ReadonlySet<string>>> = {
  legacy: new Set(),
  modern: new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]),
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: object, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * The era of a request, as the SDK's classification routes it; `undefined` for anything it
 * would refuse or route elsewhere. A plain 2025-era request — no envelope key in `_meta`, no
 * 2026 header, a 2025 protocol version or none — is recognised without running the
 * classification, which is the dearest step of a small call; any other is classified once per
 * envelope and headers (see `verdicts` and `lastVerdicts`).
 */
function eraOf(
  request: HttpRequestLike,
  body: unknown,
  params: DirectRequest['params'],
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
  const last = lastVerdicts.get(name ?? bodyMethod);
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
  const era = verdicts.remember(key, () => classifiedEra(version, method, name, body));
  const copy = meta === '' ? undefined : JSON.parse(meta);
  lastVerdicts.set(name ?? bodyMethod, { version, method, name, bodyMethod, meta: copy, era });
  return era;
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
 * The classification's verdicts, by all it reads of a request {@link directRequest} could take:
 * the routing headers, the method, and `params._meta`. The rest of such a body (its
 * id, the name or URI, object arguments, nothing else) passes the classification's schemas
 * whatever it holds. Its schemas make the classification the dearest step of a 2026-era call,
 * while a client sends the same envelope with every request. Bounded.
 */
const verdicts = new BoundedMap<string, Era | undefined>(512);

/**
 * The verdict given last, by the tool, resource or method it was given for, with what else it
 * was given for (`meta` a JSON copy of `_meta`): a client sends the same envelope with every
 * request, and comparing it with the copy costs less than writing the key of `verdicts`. Bounded.
 */
const lastVerdicts = new BoundedMap<
  string,
  {
    readonly version: string | undefined;
    readonly method: string | undefined;
    readonly name: string | undefined;
    readonly bodyMethod: string;
    readonly meta: unknown;
    readonly era: Era | undefined;
  }
>(512);

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

const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';
/** The 2025-era revisions the SDK serves. */
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Answers a request {@link directRequest} accepted, framed as the SDK frames it: a 2025-era
 * answer is an SSE stream (log notifications, then the result); a 2026-era answer is one JSON
 * body whose result carries `resultType` and the server's identity. Returns the promise of an
 * answer still being written, or nothing when it was written at once (a call that never waited).
 */
export function answerDirectly(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span?: McpRequestSpan,
): Promise<unknown> | undefined {
  if (!span) {
    const answering = answer(direct, surface, target);
    return isThenable(answering) ? answering : undefined;
  }
  let answering: McpOutcome | Promise<McpOutcome>;
  try {
    answering = answer(direct, surface, target, span);
  } catch (error) {
    span.end(UNWRITTEN);
    throw error;
  }
  if (!isThenable(answering)) return void span.end(answering);
  return traced(answering, span);
}

/** How a request whose answer could not be written ended, for its server span. */
const UNWRITTEN: McpOutcome = Object.freeze({
  error: Object.freeze({ code: -32603, message: 'Internal error' }),
});

/** Ends a request's span with how its answer ended; an answer that could not be written is a -32603. */
async function traced(answering: Promise<McpOutcome>, span: McpRequestSpan): Promise<void> {
  let outcome = UNWRITTEN;
  try {
    outcome = await answering;
  } finally {
    span.end(outcome);
  }
}

/** Answers a direct request: how it ended (for its server span), or the promise of it. */
function answer(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span?: McpRequestSpan,
): McpOutcome | Promise<McpOutcome> {
  switch (direct.method) {
    case 'tools/call':
      return answerCall(direct, surface, target, span);
    case 'tools/list':
      return answerToolList(direct, surface, target);
    case 'resources/read':
      return answerRead(direct, surface, target, span);
    default:
      writeListAnswer(direct, surface.sharedListOf(direct.method)!, surface, target);
      return {};
  }
}

/** A `tools/call`: answered at once when the call never waited. */
function answerCall(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span: McpRequestSpan | undefined,
): McpOutcome | Promise<McpOutcome> {
  const { era, id } = direct;
  const signal = new DisconnectSignal(target);
  const channel: McpCallChannel = {
    requestId: id,
    signal,
    controller: signal,
    // The 2026 era sends log notifications only at a requested level; such requests go to the SDK.
    notify:
      era === 'legacy'
        ? (method, params) => {
            if (!target.headersSent) target.writeHead(200, SSE_HEADERS);
            target.write(
              `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`,
            );
          }
        : undefined,
    traceContext: span?.context,
  };
  const finish = ({ result }: McpCallAnswer): McpOutcome => {
    send(direct, surface, target, result as Record<string, unknown>);
    // A client gone before the answer ended the request, as on the SDK path.
    if (signal.aborted) return { closed: true };
    return result.isError === true ? { toolError: true } : {};
  };
  const called = surface.call(era, direct.params.name as string, direct.params.arguments, channel);
  return isThenable(called) ? called.then(finish) : finish(called);
}

async function answerToolList(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
): Promise<McpOutcome> {
  let tools: readonly Tool[];
  try {
    tools = await surface.list(direct.era);
  } catch (error) {
    if (error instanceof ProtocolError) return fail(direct, target, error);
    throw error;
  }
  writeListAnswer(direct, tools, surface, target);
  return {};
}

/** A `resources/read`: answered at once when the read never waited. */
function answerRead(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span: McpRequestSpan | undefined,
): McpOutcome | Promise<McpOutcome> {
  const signal = new DisconnectSignal(target);
  const finish = (read: { contents: object[] }): McpOutcome => {
    send(direct, surface, target, read);
    return signal.aborted ? { closed: true } : {};
  };
  const refused = (error: unknown): McpOutcome => {
    if (error instanceof ProtocolError) return fail(direct, target, error);
    throw error;
  };
  let reading: { contents: object[] } | Promise<{ contents: object[] }>;
  try {
    reading = surface.read(direct.params.uri as string, signal, span?.context);
  } catch (error) {
    return refused(error);
  }
  return isThenable(reading) ? reading.then(finish, refused) : finish(reading);
}

/** Writes a result as its answer (a result JSON cannot hold is a tool failure). */
function send(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  result: Record<string, unknown>,
): void {
  const { era, id } = direct;
  const { serverInfo } = surface.settings.options;
  let text: string;
  try {
    text =
      era === 'modern' && !hasAnyKey(result, MODERN_RESULT_KEYS)
        ? `{"result":${withModernEnd(JSON.stringify(result), direct, serverInfo)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`
        : JSON.stringify({
            result: era === 'modern' ? modernResult(result, direct, serverInfo) : result,
            jsonrpc: '2.0',
            id,
          });
  } catch (error) {
    // A result too deep for JSON.stringify (a tool echoing a deeply nested argument) is a
    // tool failure, as when its content text could not be written.
    if (result.isError === true) throw error;
    surface.settings.logger.error(
      `[toolwright] MCP result of "${String(direct.params.name)}" cannot be written:`,
      error,
    );
    return send(direct, surface, target, internalErrorResult() as Record<string, unknown>);
  }
  write(direct, target, text);
}

/** A refusal the SDK would send as a JSON-RPC error, framed as it frames one. */
function fail(direct: DirectRequest, target: ServerResponse, error: ProtocolError): McpOutcome {
  const refusal = {
    code: error.code,
    message: error.message,
    ...(error.data !== undefined && { data: error.data }),
  };
  write(direct, target, JSON.stringify({ jsonrpc: '2.0', id: direct.id, error: refusal }));
  return { error: refusal };
}

/** Writes the answer: one JSON body on the 2026 era, the last SSE frame on the 2025 era. */
function write(direct: DirectRequest, target: ServerResponse, text: string): void {
  if (direct.era === 'modern') {
    target.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    target.end(text);
    return;
  }
  const frame = `event: message\ndata: ${text}\n\n`;
  // The whole stream at once (no notification went first): one write, its length known.
  if (!target.headersSent) {
    target.writeHead(200, { ...SSE_HEADERS, 'content-length': Buffer.byteLength(frame) });
  }
  target.end(frame);
}

/** The keys {@link modernResult} sets, and `toJSON`, which would write the result otherwise. */
const MODERN_RESULT_KEYS = ['resultType', 'ttlMs', 'cacheScope', '_meta', 'toJSON'] as const;

function hasAnyKey(value: object, keys: readonly string[]): boolean {
  for (const key of keys) if (key in value) return true;
  return false;
}

/**
 * The JSON text of {@link modernResult} from the JSON text of a result that has none of its
 * keys: the same bytes, with the end the era adds written once per server identity.
 */
function withModernEnd(resultJson: string, direct: DirectRequest, serverInfo: object): string {
  const cacheable = isListMethod(direct.method) || direct.method === 'resources/read';
  const ends = cacheable ? cacheableEnds : resultEnds;
  let end = ends.get(serverInfo);
  if (end === undefined) {
    end = JSON.stringify(modernResult({}, direct, serverInfo)).slice(1);
    ends.set(serverInfo, end);
  }
  return resultJson === '{}' ? `{${end}` : `${resultJson.slice(0, -1)},${end}`;
}
const resultEnds = new WeakMap<object, string>();
const cacheableEnds = new WeakMap<object, string>();

/** A 2026-era result: what the SDK adds to every result, and to a cacheable list. */
function modernResult(
  result: Record<string, unknown>,
  direct: DirectRequest,
  serverInfo: unknown,
): Record<string, unknown> {
  return {
    ...result,
    resultType: 'complete',
    ...((isListMethod(direct.method) || direct.method === 'resources/read') && {
      ttlMs: 0,
      cacheScope: 'private',
    }),
    _meta: { ...(result._meta as object), [SERVER_INFO_META_KEY]: serverInfo },
  };
}

/**
 * Writes the answer to a `tools/list` {@link directRequest} accepted, framed as
 * {@link answerDirectly} frames one, from the list's serialised head (see `listAnswerHead`) and
 * the request's id.
 */
export function writeListAnswer(
  direct: DirectRequest,
  list: readonly object[],
  surface: McpToolSurface,
  target: ServerResponse,
): void {
  const modern = direct.era === 'modern';
  const head = listAnswerHead(list, direct, surface.settings.options.serverInfo);
  const rest = modern ? `${JSON.stringify(direct.id)}}` : `${JSON.stringify(direct.id)}}\n\n`;
  const length = head.length + Buffer.byteLength(rest);
  target.writeHead(
    200,
    modern
      ? { 'content-type': 'application/json', 'content-length': length }
      : { ...SSE_HEADERS, 'content-length': length },
  );
  target.cork();
  target.write(head);
  target.end(rest);
}

// The serialised start of a tools/list answer, per list: the prepared list of an era is one
// frozen array, so its answer is serialised once; a filtered list is a new array each time.
// Kept as bytes, with the SSE frame's start on the 2025 era, so a list answer encodes only its id.
// Per era: the lists of resources, templates and prompts are the same array on both.
const listAnswerHeads: Record<Era, WeakMap<readonly object[], Buffer>> = {
  legacy: new WeakMap(),
  modern: new WeakMap(),
};

function listAnswerHead(
  list: readonly object[],
  direct: DirectRequest,
  serverInfo: unknown,
): Buffer {
  let head = listAnswerHeads[direct.era].get(list);
  if (head === undefined) {
    const result = { [LIST_KEYS[direct.method as ListMethod]]: list };
    const body = direct.era === 'modern' ? modernResult(result, direct, serverInfo) : result;
    const json = `{"result":${JSON.stringify(body)},"jsonrpc":"2.0","id":`;
    head = Buffer.from(direct.era === 'modern' ? json : `event: message\ndata: ${json}`);
    listAnswerHeads[direct.era].set(list, head);
  }
  return head;
}
