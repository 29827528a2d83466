import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { AsyncSlot } from '../core/async-slot.js';
import type { ToolLogger } from '../core/hooks.js';
import { JsonDepthGauge } from '../core/json-depth.js';
import type { ToolInvoker } from '../core/invoker.js';
import type { ToolContext } from '../core/types.js';
import { resolveMcpEndpointOptions, type McpEndpointOptions } from './endpoint-options.js';
import { McpHttpEndpoint, type RequestScope } from './http-endpoint.js';
import {
  abortedOnDisconnect,
  BODY_TOO_DEEP_MESSAGE,
  jsonRpcError,
  toWebRequest,
  writeWebResponse,
  type HttpRequestLike,
} from './http-framing.js';
import { McpBearerAuth } from './auth/bearer-auth.js';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpHandlerOptions extends McpEndpointOptions {
  /**
   * The context of the calls a request makes, from the HTTP request (a tenant header, a verified
   * user). Resolved once per request that needs it, before the call; a `ToolError` it throws is
   * the call's answer, anything else an internal error.
   */
  context?: (request: IncomingMessage) => ToolContext | Promise<ToolContext>;
  /**
   * Where failures are reported. Default `console.error`, and `console.warn` for warnings (a
   * refused Host, once per host). A logger with a `debug` method also receives one line per
   * request the SDK refuses (malformed JSON-RPC, say).
   */
  logger?: Pick<ToolLogger, 'error'> & {
    warn?(message: string): void;
    debug?(message: string): void;
  };
}

/** A Node `http` request listener that serves MCP, and its graceful close. */
export interface McpRequestListener {
  (request: IncomingMessage, response: ServerResponse): void;
  /**
   * Answers new requests 503, lets answers being written finish within `graceMs` (default
   * 10 s), then ends what is left. Close the invoker too (`invoker.close()`) to drain its calls.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /**
   * Resolves once the endpoint hears what other instances pass on (see the `bus` option);
   * rejects when the bus could not subscribe (also logged). Listen after it.
   *
   * @example
   * await handler.ready();
   * createServer(handler).listen(3000);
   */
  ready(): Promise<void>;
}

interface RequestStore {
  readonly request: HttpRequestLike & { raw: IncomingMessage };
  context?: ToolContext | Promise<ToolContext>;
}

/** The request each handler is serving in the current async flow, with its resolved context. */
const requests = new AsyncSlot<RequestStore>();

/**
 * Serves an invoker's tools over MCP from any Node HTTP server, without Nest: both protocol eras
 * statelessly on `POST`, `405` for other methods, Host/Origin checks, bounded bodies and
 * JSON-RPC errors for malformed ones — the same endpoint `ToolsModule` mounts.
 *
 * @example
 * import { createServer } from 'node:http';
 * import { createToolInvoker } from 'toolwright/core';
 * import { createMcpHttpHandler } from 'toolwright/mcp';
 *
 * const invoker = createToolInvoker([pingTool]);
 * const mcp = createMcpHttpHandler(invoker, {
 *   context: (req) => ({ tenantId: req.headers['x-tenant-id'] }),
 * });
 * createServer((req, res) =>
 *   req.url?.startsWith('/mcp') ? mcp(req, res) : res.writeHead(404).end(),
 * ).listen(3000);
 */
export function createMcpHttpHandler(
  invoker: ToolInvoker,
  options: McpHttpHandlerOptions = {},
): McpRequestListener {
  const resolved = resolveMcpEndpointOptions(options);
  // Not `console` itself: its `debug` would print a line per refused request to stdout.
  const logger = options.logger ?? {
    error: (message: string, ...error: unknown[]) => console.error(message, ...error),
    warn: (message: string) => console.warn(message),
  };
  const scope: RequestScope = {
    run: (request, answer) => requests.run({ request: request as RequestStore['request'] }, answer),
    get current() {
      return requests.get()?.request;
    },
  };
  const resolveContext = options.context;
  const auth = resolved.auth && new McpBearerAuth(resolved.auth);
  const endpoint = new McpHttpEndpoint({
    invoker,
    options: resolved,
    scope,
    logger,
    ...(auth && { auth }),
    context:
      resolveContext &&
      (() => {
        const store = requests.get();
        return store && (store.context ??= resolveContext(store.request.raw));
      }),
  });
  const listening = endpoint.listen();
  listening.catch((error: unknown) =>
    logger.error('[toolwright] MCP: the instance bus could not subscribe:', error),
  );

  const serve = postServer(endpoint, resolved.maxBodyBytes, logger);
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    if (!auth) return serve(request, response);
    if (auth.servesMetadata(request.url ?? '/')) {
      request.resume();
      const { request: webRequest } = toWebRequest(request, abortedOnDisconnect(response).signal);
      void auth.metadataResponse(webRequest).then((answer) => writeWebResponse(response, answer));
      return;
    }
    // Signed in before the body is read: a refused request's body is never parsed.
    auth.authenticateThen(request, (verified) => {
      if (response.destroyed) return void request.resume();
      if (!(verified instanceof Response)) return serve(request, response);
      request.resume();
      void writeWebResponse(response, verified);
    });
  };
  return Object.assign(listener, {
    close: (closeOptions?: { graceMs?: number }) => endpoint.close(closeOptions?.graceMs ?? 10_000),
    ready: () => listening,
  });
}

/** Serves a `POST` with its body read within the limits; `405` for any other method. */
function postServer(
  endpoint: McpHttpEndpoint,
  maxBodyBytes: number,
  logger: Pick<ToolLogger, 'error'>,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request: IncomingMessage, response: ServerResponse): void => {
    if (request.method !== 'POST') {
      request.resume();
      return endpoint.methodNotAllowed(response);
    }
    readBody(request, maxBodyBytes).then(
      (body) => {
        if (body === TOO_LARGE) {
          return jsonRpcError(
            response,
            413,
            ProtocolErrorCode.InvalidRequest,
            'Request body too large.',
            { connection: 'close' },
          );
        }
        if (body === TOO_DEEP) {
          return jsonRpcError(response, 400, ProtocolErrorCode.ParseError, BODY_TOO_DEEP_MESSAGE, {
            connection: 'close',
          });
        }
        void endpoint.handle(withBody(request, body), response);
      },
      (error: unknown) => {
        logger.error('[toolwright] MCP request body could not be read:', error);
        response.destroy();
      },
    );
  };
}

const TOO_LARGE = Symbol('tooLarge');
const TOO_DEEP = Symbol('tooDeep');

/**
 * The body's bytes, or as soon as it passes `limit` `TOO_LARGE`, or as soon as it nests deeper
 * than `MAX_JSON_DEPTH` `TOO_DEEP` (the rest is not read).
 */
function readBody(
  request: IncomingMessage,
  limit: number,
): Promise<Buffer | typeof TOO_LARGE | typeof TOO_DEEP> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    request.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const gauge = new JsonDepthGauge();
    let size = 0;
    const refuse = (reason: typeof TOO_LARGE | typeof TOO_DEEP) => {
      request.removeAllListeners('data');
      request.resume();
      resolve(reason);
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refuse(TOO_LARGE);
      else if (!gauge.write(chunk)) refuse(TOO_DEEP);
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * The request as the endpoint reads it: a JSON body parsed (as a web framework's parser would
 * hand it over), any other body as its bytes, for the SDK to refuse in its own words.
 */
function withBody(request: IncomingMessage, body: Buffer): RequestStore['request'] {
  let parsed: unknown = body;
  const type = request.headers['content-type'] ?? '';
  if (/^application\/(.+\+)?json\b/i.test(type) && body.length > 0) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      // Not JSON: the bytes go to the SDK, which answers the parse error.
    }
  }
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: parsed,
    raw: request,
    socket: request.socket,
  };
}
