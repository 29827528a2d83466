import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import {
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import {
  currentInstruments,
  otel,
  type Instruments,
  type ToolTelemetry,
} from '../core/telemetry.js';
import type { HttpRequestLike } from './http-framing.js';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-versions.js';

/** Where an MCP request came from, as the network attributes of its span record it. */
export interface McpNetwork {
  readonly transport: 'tcp' | 'pipe';
  /** The HTTP version (`1.1`), on HTTP. */
  readonly httpVersion?: string;
  readonly clientAddress?: string;
  readonly clientPort?: number;
  /** The `MCP-Protocol-Version` header, on HTTP. */
  readonly protocolVersionHeader?: string;
}

/** The JSON-RPC request or notification a server span is made of. */
export interface McpRequestMessage {
  readonly method: string;
  readonly id?: unknown;
  readonly params?: unknown;
}

/** Where a request came from; read only when a span or metric will record it. */
export type McpNetworkSource = () => McpNetwork | undefined;

/** Whether the server has a tool (or prompt) of a name a request gives. */
export type McpCatalog = (kind: 'tool' | 'prompt', name: string) => boolean;

/**
 * The methods of the MCP revisions served, as the conventions name them. Any other method a
 * client sends is recorded as `_OTHER`, so that made-up methods cannot grow a metric's series.
 */
const MCP_METHODS: ReadonlySet<string> = new Set([
  'completion/complete',
  'elicitation/create',
  'initialize',
  'logging/setLevel',
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/message',
  'notifications/progress',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'ping',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/read',
  'resources/subscribe',
  'resources/templates/list',
  'resources/unsubscribe',
  'roots/list',
  'sampling/createMessage',
  'server/discover',
  'subscriptions/listen',
  'tasks/cancel',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/update',
  'tools/call',
  'tools/list',
]);

/**
 * The methods whose `params.uri` names a resource, recorded as `mcp.resource.uri` on the span.
 * Never on the metric: a URI is the client's to choose, and would multiply its series.
 */
const RESOURCE_URI_METHODS: ReadonlySet<string> = new Set([
  'notifications/resources/updated',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** How a request ended: a JSON-RPC error, a tool's `isError` result, a close before any answer, or success. */
export type McpOutcome =
  | { readonly error: { readonly code: number; readonly message?: string } }
  | { readonly toolError: true }
  | { readonly closed: true }
  | Record<string, never>;

const SUCCESS: McpOutcome = Object.freeze({});

/** The network of an HTTP request, read from its socket and headers. */
export function httpNetwork(request: HttpRequestLike | undefined): McpNetwork | undefined {
  if (!request) return undefined;
  const raw = (request.raw ?? request) as HttpRequestLike & { httpVersion?: string };
  const socket = raw.socket ?? request.socket;
  const header = request.headers['mcp-protocol-version'];
  return {
    transport: 'tcp',
    httpVersion: raw.httpVersion,
    clientAddress: socket?.remoteAddress,
    clientPort: socket?.remotePort,
    protocolVersionHeader: typeof header === 'string' ? header : undefined,
  };
}

/** The network of a stdio connection. */
export const PIPE_NETWORK: McpNetwork = Object.freeze({ transport: 'pipe' });

const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/**
 * One MCP request's SERVER span (when a tracer is registered) and its
 * `mcp.server.operation.duration`, by the MCP semantic conventions. Its parent is the trace
 * context the client put in `params._meta` (with a link to the active one), else the active
 * context (the HTTP instrumentation's span).
 */
export class McpRequestSpan {
  private readonly span?: Span;
  /** The context the request's tool call runs in: this span's. */
  readonly context?: Context;
  private readonly started = performance.now();
  private readonly attributes: Attributes;
  private ended = false;

  readonly method: string;

  /**
   * `catalog` says which tool and prompt names exist: only those name the span and go on the
   * metric. `negotiatedVersion`: the protocol version of the connection (a 2025-era stdio session).
   */
  constructor(
    private readonly telemetry: ToolTelemetry,
    private readonly instruments: Instruments,
    message: McpRequestMessage,
    catalog: McpCatalog,
    networkSource: McpNetworkSource | undefined,
    negotiatedVersion: string | undefined,
  ) {
    this.method = message.method;
    const method = MCP_METHODS.has(message.method) ? message.method : '_OTHER';
    const params = (message.params ?? {}) as {
      name?: unknown;
      uri?: unknown;
      _meta?: unknown;
      protocolVersion?: unknown;
    };
    const meta = isObject(params._meta) ? params._meta : undefined;
    const kind = method === 'tools/call' ? 'tool' : method === 'prompts/get' ? 'prompt' : undefined;
    const target = kind && typeof params.name === 'string' ? params.name : undefined;
    const known = target !== undefined && catalog(kind!, target);
    const nameKey = kind === 'tool' ? 'gen_ai.tool.name' : 'gen_ai.prompt.name';
    const network = networkSource?.();
    const version =
      (meta && typeof meta[PROTOCOL_VERSION_META_KEY] === 'string'
        ? (meta[PROTOCOL_VERSION_META_KEY] as string)
        : undefined) ??
      network?.protocolVersionHeader ??
      negotiatedVersion ??
      (method === 'initialize' && typeof params.protocolVersion === 'string'
        ? params.protocolVersion
        : undefined);
    // What the duration histogram records too: nothing a client can vary at will. Built key by
    // key: this runs for every request, and the SDK's cost grows with each attribute.
    const attributes: Attributes = { 'mcp.method.name': method };
    if (kind === 'tool') attributes['gen_ai.operation.name'] = 'execute_tool';
    if (known) attributes[nameKey] = target;
    if (version !== undefined) {
      // A version the server does not serve is the client's invention, recorded as `_OTHER`.
      attributes['mcp.protocol.version'] = SERVED_PROTOCOL_VERSIONS.has(version)
        ? version
        : '_OTHER';
    }
    if (network) {
      attributes['network.transport'] = network.transport;
      if (network.httpVersion !== undefined) {
        attributes['network.protocol.name'] = 'http';
        attributes['network.protocol.version'] = network.httpVersion;
      }
    }
    this.attributes = attributes;
    const { tracer } = instruments;
    if (!tracer) return;
    const active = otel.context.active();
    const { parent, links } = parentOf(active, meta);
    const uri = RESOURCE_URI_METHODS.has(method) ? params.uri : undefined;
    // The span's own copy: the URI stays off the metric's attributes.
    const spanAttributes =
      typeof uri === 'string' ? { ...attributes, 'mcp.resource.uri': uri } : attributes;
    const span = tracer.startSpan(
      known ? `${method} ${target}` : method,
      links
        ? { kind: otel.SpanKind.SERVER, attributes: spanAttributes, links }
        : { kind: otel.SpanKind.SERVER, attributes: spanAttributes },
      parent,
    );
    if (span.isRecording()) {
      const id = message.id;
      // A name no tool or prompt has stays on the span, where it says what the client asked.
      if (target !== undefined && !known) span.setAttribute(nameKey, target);
      if (typeof id === 'string' || typeof id === 'number') {
        span.setAttribute('jsonrpc.request.id', String(id));
      }
      if (network?.clientAddress !== undefined) {
        span.setAttribute('client.address', network.clientAddress);
        if (network.clientPort !== undefined) span.setAttribute('client.port', network.clientPort);
      }
    }
    this.span = span;
    this.context = otel.trace.setSpan(parent, span);
  }

  /** Ends the span and records the duration, once; later calls do nothing. Never throws. */
  end(outcome: McpOutcome = SUCCESS): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.record(outcome);
    } catch (error) {
      this.telemetry.failed(this.method, error);
    }
  }

  private record(outcome: McpOutcome): void {
    const errorType =
      'error' in outcome
        ? String(outcome.error.code)
        : 'toolError' in outcome
          ? 'tool_error'
          : 'closed' in outcome
            ? 'cancelled'
            : undefined;
    // A success records the request's own attributes, uncopied.
    let outcomeAttributes: Attributes | undefined;
    if (errorType !== undefined) {
      outcomeAttributes = { 'error.type': errorType };
      if ('error' in outcome) outcomeAttributes['rpc.response.status_code'] = errorType;
    }
    const { span } = this;
    if (span) {
      if (outcomeAttributes) {
        span.setAttributes(outcomeAttributes);
        const message = 'error' in outcome ? outcome.error.message : undefined;
        span.setStatus({
          code: otel.SpanStatusCode.ERROR,
          ...(message !== undefined && { message }),
        });
      }
      span.end();
    }
    this.instruments.mcpDuration?.record(
      (performance.now() - this.started) / 1000,
      outcomeAttributes ? { ...this.attributes, ...outcomeAttributes } : this.attributes,
    );
  }
}

/**
 * The span of a request or notification under an invoker's telemetry, or `undefined` when no
 * SDK is registered. Never throws: an SDK that fails is logged, and the request goes untraced.
 */
export function startMcpRequestSpan(
  telemetry: ToolTelemetry,
  message: McpRequestMessage,
  catalog: McpCatalog,
  network?: McpNetworkSource,
  negotiatedVersion?: string,
): McpRequestSpan | undefined {
  const instruments = currentInstruments();
  if (!instruments.tracer && !instruments.mcpDuration) return undefined;
  try {
    return new McpRequestSpan(telemetry, instruments, message, catalog, network, negotiatedVersion);
  } catch (error) {
    telemetry.failed(message.method, error);
    return undefined;
  }
}

/** The parent of a server span: the client's context from `_meta`, linked to the active one. */
function parentOf(
  active: Context,
  meta: Record<string, unknown> | undefined,
): { parent: Context; links?: Link[] } {
  if (!meta || typeof meta.traceparent !== 'string') return { parent: active };
  const carrier: Record<string, string> = {};
  for (const key of TRACE_KEYS) {
    if (typeof meta[key] === 'string') carrier[key] = meta[key] as string;
  }
  let extracted: Context;
  try {
    extracted = otel.propagation.extract(active, carrier);
  } catch {
    return { parent: active };
  }
  const remote = otel.trace.getSpanContext(extracted);
  const ambient = otel.trace.getSpanContext(active);
  if (!remote || remote === ambient) return { parent: active };
  return {
    parent: extracted,
    ...(ambient && otel.isSpanContextValid(ambient) && { links: [{ context: ambient }] }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The server spans of the requests an SDK server handles on one transport: each request and
 * notification the transport delivers opens one, and the response the server sends for it (or
 * the transport's close) ends it. Watches the transport before the server connects to it: the
 * SDK's `connect` keeps the callbacks it finds and calls them first.
 */
export class McpTransportSpans {
  private readonly open = new Map<unknown, McpRequestSpan>();
  private negotiatedVersion?: string;

  constructor(
    private readonly telemetry: ToolTelemetry,
    private readonly catalog: McpCatalog,
    private readonly network: McpNetworkSource,
  ) {}

  /** The context of a request's span, to parent its tool call on. */
  contextOf(id: unknown): Context | undefined {
    return this.open.get(id)?.context;
  }

  watch(transport: Transport): void {
    const { onmessage, onclose } = transport;
    transport.onmessage = (message, extra) => {
      this.received(message);
      onmessage?.call(transport, message, extra);
    };
    transport.onclose = () => {
      for (const span of this.open.values()) span.end({ closed: true });
      this.open.clear();
      onclose?.call(transport);
    };
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.sent(message);
      return send(message, options);
    };
  }

  private received(message: JSONRPCMessage): void {
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof method !== 'string') return;
    const span = startMcpRequestSpan(
      this.telemetry,
      { method, id, params },
      this.catalog,
      this.network,
      this.negotiatedVersion,
    );
    if (!span) return;
    // A notification has no answer: its span covers its delivery.
    if (id === undefined) span.end();
    else this.open.set(id, span);
  }

  private sent(message: JSONRPCMessage): void {
    const { id, result, error } = message as {
      id?: unknown;
      result?: { isError?: unknown; protocolVersion?: unknown };
      error?: { code: number; message?: string };
    };
    if (id === undefined || (result === undefined && error === undefined)) return;
    const span = this.open.get(id);
    if (!span) return;
    this.open.delete(id);
    if (span.method === 'initialize' && typeof result?.protocolVersion === 'string') {
      this.negotiatedVersion = result.protocolVersion;
    }
    span.end(
      error
        ? { error }
        : span.method === 'tools/call' && result?.isError === true
          ? { toolError: true }
          : SUCCESS,
    );
  }
}
