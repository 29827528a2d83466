import type { ServerResponse } from 'node:http';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type Tool,
} from '@modelcontextprotocol/server';
import { isThenable } from '../core/maybe-async.js';
import {
  AnswerWriter,
  isListMethod,
  refusalOf,
  type Era,
  type ListMethod,
} from './answer-writer.js';
import { internalErrorResult } from './call-tool-result.js';
import type { ResolvedMcpEndpointOptions } from './endpoint-options.js';
import { EraVerdicts, header } from './era-verdicts.js';
import { DisconnectSignal, type HttpRequestLike } from './http-framing.js';
import { declaresTasksIn } from './eras/2026-07-28/tasks.js';
import type { McpCallAnswer, McpCallChannel, McpToolSurface } from './tool-surface.js';
import type { McpOutcome, McpRequestSpan } from './telemetry.js';

/** A request the direct path answers (see {@link DirectAnswers.request}). */
export interface DirectRequest {
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

/**
 * An endpoint's direct path: the common requests it answers itself, exactly as the SDK would,
 * rather than through a per-request SDK server. It holds what the endpoint remembers for them:
 * the classification's verdicts (see `EraVerdicts`) and what its answers share (see
 * `AnswerWriter`), all bounded.
 */
export class DirectAnswers {
  private readonly eras = new EraVerdicts();
  private readonly writer: AnswerWriter;
  private readonly protocol: ResolvedMcpEndpointOptions['protocol'];

  constructor(options: Pick<ResolvedMcpEndpointOptions, 'protocol' | 'serverInfo' | 'cacheHints'>) {
    this.protocol = options.protocol;
    this.writer = new AnswerWriter(options.serverInfo, options.cacheHints);
  }

  /**
   * The request to answer directly, or `undefined` for one the SDK answers: a single
   * `tools/list`, a list of resources, templates or prompts every caller sees whole, a
   * `tools/call` of a tool whose result needs no era projection, or a `resources/read` of a URI
   * something serves, in the plainest form a client sends — no key the SDK would validate or act
   * on beyond the name or URI, object arguments and (on the 2026 era) the envelope, and the
   * routing headers a 2026-era request requires, agreeing with its body. Everything else —
   * errors, other methods, batches, notifications, progress tokens, log levels, anything
   * unusual — goes to the SDK, which stays the reference: test/mcp/direct-vs-sdk.spec.ts sends
   * generated requests both ways and compares.
   */
  request(
    request: HttpRequestLike,
    body: unknown,
    surface: McpToolSurface,
  ): DirectRequest | undefined {
    return directRequest(request, body, surface, this.protocol, this.eras);
  }

  /**
   * Answers a request {@link request} accepted, framed as the SDK frames it: a 2025-era answer
   * is an SSE stream (log notifications, then the result); a 2026-era answer is one JSON body
   * whose result carries `resultType` and the server's identity. Returns the promise of an
   * answer still being written, or nothing when it was written at once (a call that never
   * waited).
   */
  answer(
    direct: DirectRequest,
    surface: McpToolSurface,
    target: ServerResponse,
    span?: McpRequestSpan,
  ): Promise<unknown> | undefined {
    if (!span) {
      const answering = this.answering(direct, surface, target);
      return isThenable(answering) ? answering : undefined;
    }
    let answering: McpOutcome | Promise<McpOutcome>;
    try {
      answering = this.answering(direct, surface, target, span);
    } catch (error) {
      span.end(UNWRITTEN);
      throw error;
    }
    if (!isThenable(answering)) return void span.end(answering);
    return traced(answering, span);
  }

  /** Writes the answer to a list request {@link request} accepted, with the list it answers. */
  writeList(direct: DirectRequest, list: readonly object[], target: ServerResponse): void {
    this.writer.writeList(target, direct.era, direct.method as ListMethod, direct.id, list);
  }

  /** Answers a direct request: how it ended (for its server span), or the promise of it. */
  private answering(
    direct: DirectRequest,
    surface: McpToolSurface,
    target: ServerResponse,
    span?: McpRequestSpan,
  ): McpOutcome | Promise<McpOutcome> {
    switch (direct.method) {
      case 'tools/call':
        return this.answerCall(direct, surface, target, span);
      case 'tools/list':
        return this.answerToolList(direct, surface, target);
      case 'resources/read':
        return this.answerRead(direct, surface, target, span);
      default:
        this.writeList(direct, surface.sharedListOf(direct.method)!, target);
        return {};
    }
  }

  /** A `tools/call`: answered at once when the call never waited. */
  private answerCall(
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
          ? (method, params) => this.writer.writeNotification(target, method, params)
          : undefined,
      traceContext: span?.context,
    };
    const finish = ({ result }: McpCallAnswer): McpOutcome => {
      this.send(direct, surface, target, result as Record<string, unknown>);
      // A client gone before the answer ended the request, as on the SDK path.
      if (signal.aborted) return { closed: true };
      return result.isError === true ? { toolError: true } : {};
    };
    const called = surface.call(
      era,
      direct.params.name as string,
      direct.params.arguments,
      channel,
    );
    return isThenable(called) ? called.then(finish) : finish(called);
  }

  private async answerToolList(
    direct: DirectRequest,
    surface: McpToolSurface,
    target: ServerResponse,
  ): Promise<McpOutcome> {
    let tools: readonly Tool[];
    try {
      tools = await surface.list(direct.era);
    } catch (error) {
      if (error instanceof ProtocolError) return this.fail(direct, target, error);
      throw error;
    }
    this.writeList(direct, tools, target);
    return {};
  }

  /** A `resources/read`: answered at once when the read never waited. */
  private answerRead(
    direct: DirectRequest,
    surface: McpToolSurface,
    target: ServerResponse,
    span: McpRequestSpan | undefined,
  ): McpOutcome | Promise<McpOutcome> {
    const signal = new DisconnectSignal(target);
    const finish = (read: { contents: object[] }): McpOutcome => {
      this.send(direct, surface, target, read);
      return signal.aborted ? { closed: true } : {};
    };
    const refused = (error: unknown): McpOutcome => {
      if (error instanceof ProtocolError) return this.fail(direct, target, error);
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
  private send(
    direct: DirectRequest,
    surface: McpToolSurface,
    target: ServerResponse,
    result: Record<string, unknown>,
  ): void {
    let text: string;
    try {
      text = this.writer.resultText(direct.era, direct.method, direct.id, result);
    } catch (error) {
      // A result too deep for JSON.stringify (a tool echoing a deeply nested argument) is a
      // tool failure, as when its content text could not be written.
      if (result.isError === true) throw error;
      surface.settings.logger.error(
        `[toolwright] MCP result of "${String(direct.params.name)}" cannot be written:`,
        error,
      );
      return this.send(direct, surface, target, internalErrorResult() as Record<string, unknown>);
    }
    this.writer.writeAnswer(target, direct.era, text);
  }

  /** A refusal the SDK would send as a JSON-RPC error, framed as it frames one. */
  private fail(direct: DirectRequest, target: ServerResponse, error: ProtocolError): McpOutcome {
    const refusal = refusalOf(error);
    this.writer.writeAnswer(target, direct.era, this.writer.errorText(direct.id, refusal));
    return { error: refusal };
  }
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

/** What {@link DirectAnswers.request} answers, with the endpoint's protocol and verdicts. */
function directRequest(
  request: HttpRequestLike,
  body: unknown,
  surface: McpToolSurface,
  protocol: ResolvedMcpEndpointOptions['protocol'],
  eras: EraVerdicts,
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
  const era = eras.eraOf(request, body, params);
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
