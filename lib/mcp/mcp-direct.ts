import type { ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from '@modelcontextprotocol/server';
import { internalErrorResult } from './call-tool-result.js';
import type { HttpRequestLike } from './mcp-http.js';
import type { McpCallChannel, McpToolSurface } from './mcp-server.factory.js';

type Era = 'legacy' | 'modern';

interface DirectRequest {
  readonly era: Era;
  readonly id: string | number;
  readonly method: 'tools/list' | 'tools/call';
  readonly params: {
    name?: unknown;
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
 * single `tools/list`, or a `tools/call` of a tool whose result needs no era projection, without
 * a progress token (and, on the 2026 era, without a log level). Everything else — errors, other
 * methods, batches, notifications, anything unusual — goes to the SDK, which stays the reference:
 * the tests answer the same requests both ways and compare.
 */
export function directRequest(
  request: HttpRequestLike,
  body: unknown,
  surface: McpToolSurface,
  protocol: 'dual' | 'modern' | 'legacy',
): DirectRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (
    message.jsonrpc !== '2.0' ||
    (message.method !== 'tools/list' && message.method !== 'tools/call')
  ) {
    return undefined;
  }
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return undefined;
  const accept = header(request, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return undefined;
  if (!/^application\/json\b/i.test(header(request, 'content-type') ?? '')) return undefined;
  if (header(request, 'mcp-session-id') !== undefined) return undefined;

  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header(request, 'mcp-protocol-version'),
    mcpMethodHeader: header(request, 'mcp-method'),
    mcpNameHeader: header(request, 'mcp-name'),
    body,
  });
  let era: Era;
  if (route.kind === 'modern' && route.messageKind === 'request' && protocol !== 'legacy') {
    era = 'modern';
  } else if (route.kind === 'legacy' && route.reason === 'no-claim' && protocol !== 'modern') {
    const version = header(request, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    era = 'legacy';
  } else {
    return undefined;
  }

  const params = (message.params ?? {}) as DirectRequest['params'];
  if (typeof params !== 'object' || params === null) return undefined;
  if (message.method === 'tools/list' && params.cursor !== undefined) return undefined;
  if (message.method === 'tools/call') {
    if (typeof params.name !== 'string' || !surface.answersDirectly(params.name)) return undefined;
    if (params._meta?.progressToken !== undefined) return undefined;
    if (era === 'modern' && params._meta?.[LOG_LEVEL_META_KEY] !== undefined) return undefined;
  }
  return { era, id: message.id, method: message.method, params };
}

/**
 * Answers a request {@link directRequest} accepted, framed as the SDK frames it: a 2025-era
 * answer is an SSE stream (log notifications, then the result); a 2026-era answer is one JSON
 * body whose result carries `resultType` and the server's identity.
 */
export async function answerDirectly(
  direct: DirectRequest,
  surface: McpToolSurface,
  target: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const { era, id } = direct;
  const serverInfo = surface.settings.options.serverInfo;
  const frame = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  const send = (result: Record<string, unknown>): void => {
    const message = {
      result:
        era === 'modern'
          ? {
              ...result,
              resultType: 'complete',
              ...listCache(direct),
              _meta: { ...(result._meta as object), [SERVER_INFO_META_KEY]: serverInfo },
            }
          : result,
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

  // A refusal the SDK would send as a JSON-RPC error, framed as it frames one.
  const fail = (error: ProtocolError): void => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: error.code, message: error.message },
    });
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

  if (direct.method === 'tools/list') {
    let tools: readonly Tool[];
    try {
      tools = await surface.list(era);
    } catch (error) {
      if (error instanceof ProtocolError) return fail(error);
      throw error;
    }
    send({ tools: tools as Tool[] });
    return;
  }
  const channel: McpCallChannel = {
    requestId: id,
    signal,
    // The 2026 era sends log notifications only at a requested level; such requests go to the SDK.
    notify:
      era === 'legacy'
        ? (method, params) => {
            if (!target.headersSent) target.writeHead(200, SSE_HEADERS);
            target.write(frame({ jsonrpc: '2.0', method, params }));
          }
        : undefined,
  };
  const { result } = await surface.call(
    era,
    direct.params.name as string,
    direct.params.arguments,
    channel,
  );
  send(result as Record<string, unknown>);
}

function listCache(direct: DirectRequest) {
  return direct.method === 'tools/list' ? { ttlMs: 0, cacheScope: 'private' } : {};
}
