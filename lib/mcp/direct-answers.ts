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
import { abortedOnDisconnect, type HttpRequestLike } from './http-framing.js';
import type { McpCallChannel, McpToolSurface } from './tool-surface.js';
import type { McpOutcome, McpRequestSpan } from './telemetry.js';

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
 * classification, which is the dearest step of a small call.
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
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: name,
    body,
  });
  if (route.kind === 'modern' && route.messageKind === 'request') {
    // A claim of a revision the SDK does not serve is answered with its error.
    return route.classification.revision === MODERN_VERSION ? 'modern' : undefined;
  }
  if (route.kind === 'legacy' && route.reason === 'no-claim') {
    return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)
      ? 'legacy'
      : undefined;
  }
  return undefined;
}

const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';
/** The 2026-era revision the SDK serves (2.4.x), and the one whose answers the direct path writes. */
const MODERN_VERSION = '2026-07-28';
const LEGACY_VERSIONS: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Answers a request {@link directRequest} accepted, framed as the SDK frames it: a 2025-era
 * answer is an SSE stream (log notifications, then the result); a 2026-era answer is one JSON
 * body whose result carries `resultType` and the server's identity.
 */
export async function answerDirectly(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span?: McpRequestSpan,
): Promise<unknown> {
  if (!span) return answer(direct, surface, target);
  return traced(answer(direct, surface, target, span), span);
}

/** Ends a request's span with how its answer ended; an answer that could not be written is a -32603. */
async function traced(answering: Promise<McpOutcome>, span: McpRequestSpan): Promise<void> {
  let outcome: McpOutcome = { error: { code: -32603, message: 'Internal error' } };
  try {
    outcome = await answering;
  } finally {
    span.end(outcome);
  }
}

/** Answers a direct request; resolves to how it ended, for its server span. */
async function answer(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  span?: McpRequestSpan,
): Promise<McpOutcome> {
  const { era, id } = direct;
  const serverInfo = surface.settings.options.serverInfo;
  const frame = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  /** The answer: one JSON body on the 2026 era, the last SSE frame on the 2025 era. */
  const write = (text: string): void => {
    if (era === 'modern') {
      target.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      target.end(text);
    } else {
      if (!target.headersSent) target.writeHead(200, SSE_HEADERS);
      target.end(`event: message\ndata: ${text}\n\n`);
    }
  };
  const send = (result: Record<string, unknown>): void => {
    const message = {
      result: era === 'modern' ? modernResult(result, direct, serverInfo) : result,
      jsonrpc: '2.0',
      id,
    };
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      // A result too deep for JSON.stringify (a tool echoing a deeply nested argument) is a
      // tool failure, as when its content text could not be written.
      if (result.isError === true) throw error;
      surface.settings.logger.error(
        `[toolwright] MCP result of "${String(direct.params.name)}" cannot be written:`,
        error,
      );
      return send(internalErrorResult() as Record<string, unknown>);
    }
    write(text);
  };

  // A refusal the SDK would send as a JSON-RPC error, framed as it frames one.
  const fail = (error: ProtocolError): McpOutcome => {
    const refusal = {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    };
    write(JSON.stringify({ jsonrpc: '2.0', id, error: refusal }));
    return { error: refusal };
  };

  if (direct.method === 'resources/read') {
    const controller = abortedOnDisconnect(target);
    try {
      send(await surface.read(direct.params.uri as string, controller.signal, span?.context));
    } catch (error) {
      if (error instanceof ProtocolError) return fail(error);
      throw error;
    }
    return controller.signal.aborted ? { closed: true } : {};
  }
  if (direct.method !== 'tools/call' && direct.method !== 'tools/list') {
    writeListAnswer(direct, surface.sharedListOf(direct.method)!, surface, target);
    return {};
  }
  if (direct.method === 'tools/list') {
    let tools: readonly Tool[];
    try {
      tools = await surface.list(era);
    } catch (error) {
      if (error instanceof ProtocolError) return fail(error);
      throw error;
    }
    writeListAnswer(direct, tools, surface, target);
    return {};
  }
  const controller = abortedOnDisconnect(target);
  const channel: McpCallChannel = {
    requestId: id,
    signal: controller.signal,
    controller,
    // The 2026 era sends log notifications only at a requested level; such requests go to the SDK.
    notify:
      era === 'legacy'
        ? (method, params) => {
            if (!target.headersSent) target.writeHead(200, SSE_HEADERS);
            target.write(frame({ jsonrpc: '2.0', method, params }));
          }
        : undefined,
    traceContext: span?.context,
  };
  const { result } = await surface.call(
    era,
    direct.params.name as string,
    direct.params.arguments,
    channel,
  );
  send(result as Record<string, unknown>);
  // A client gone before the answer ended the request, as on the SDK path.
  if (controller.signal.aborted) return { closed: true };
  return result.isError === true ? { toolError: true } : {};
}

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
  target.writeHead(
    200,
    modern
      ? {
          'content-type': 'application/json',
          'content-length': head.length + Buffer.byteLength(rest),
        }
      : SSE_HEADERS,
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
