import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { duplexPair, Readable } from 'node:stream';
import { ToolsConfigurationError } from '../core/errors.js';
import type { ToolInvoker } from '../core/invoker.js';
import { createMcpHttpHandler, type McpHttpHandlerOptions } from '../mcp/http-handler.js';
import { TESTING_MESSAGES } from './testing.messages.js';

/**
 * What a test reaches in memory: an application (a Nest `INestApplication`, Express or Fastify,
 * initialised on first use), a core invoker (served with `createMcpHttpHandler`), a Node request
 * listener (`createMcpHttpHandler`'s, an Express app), or a Node `http.Server` that need not
 * listen.
 */
export type InMemoryTarget =
  | NestApplicationLike
  | ToolInvoker
  | ((request: IncomingMessage, response: ServerResponse) => void)
  | Server;

/** Options of {@link createInMemoryFetch}. */
export interface InMemoryFetchOptions {
  /**
   * How a core invoker is served: the options of `createMcpHttpHandler` (the context resolver,
   * `allowedHosts`, `auth`, …). Only for an invoker target: an application or a listener serves
   * its own endpoint, and giving it one throws.
   */
  mcp?: McpHttpHandlerOptions;
}

/** A `fetch` that answers from an application in memory, as {@link createInMemoryFetch} makes it. */
export type InMemoryFetch = (
  input: string | URL | Request,
  init?: RequestInit,
) => Promise<Response>;

/**
 * A `fetch` that sends each request to the target in memory, with no port and no network socket:
 * the request is written as HTTP/1.1 into an in-memory stream pair that the application's own
 * Node HTTP server reads, so it goes through everything a request from the network goes through
 * (Node's parser, the framework, Host and Origin checks, sign-in, the MCP endpoint). The answer
 * streams back as it is written: a Server-Sent Events answer arrives event by event.
 *
 * The URL's host is the request's `Host` header (`http://localhost/mcp` by default in
 * {@link connectMcpClient}); only its path and query reach the application.
 *
 * @example
 * const fetch = createInMemoryFetch(app);
 * const answer = await fetch('http://localhost/mcp', { method: 'GET' });
 * expect(answer.status).toBe(405);
 */
export function createInMemoryFetch(
  target: InMemoryTarget,
  options: InMemoryFetchOptions = {},
): InMemoryFetch {
  if (options.mcp && !isInvoker(target)) {
    throw new ToolsConfigurationError(TESTING_MESSAGES.mcpWithoutInvoker());
  }
  let server: Promise<Server> | undefined;
  return async (input, init) => {
    const request = new Request(input, init);
    server ??= serverOf(target, options);
    return dispatch(await server, request);
  };
}

/** The Node HTTP server behind a target, created (not listening) when the target has none. */
async function serverOf(target: InMemoryTarget, options: InMemoryFetchOptions): Promise<Server> {
  if (isApplication(target)) {
    await target.init();
    // Fastify routes requests once it is ready, which Nest's `listen` would have awaited.
    const instance = target.getHttpAdapter?.().getInstance?.() as { ready?: unknown } | undefined;
    if (typeof instance?.ready === 'function') await (instance.ready as () => Promise<unknown>)();
    return target.getHttpServer() as Server;
  }
  if (isInvoker(target)) return createServer(createMcpHttpHandler(target, options.mcp));
  if (typeof target === 'function') return createServer(target);
  return target;
}

/** What the helpers use of a Nest `INestApplication`. */
export interface NestApplicationLike {
  init(): Promise<unknown>;
  getHttpServer(): unknown;
  getHttpAdapter?(): { getInstance?(): unknown };
}

function isApplication(target: InMemoryTarget): target is NestApplicationLike {
  return typeof (target as { getHttpServer?: unknown }).getHttpServer === 'function';
}

function isInvoker(target: InMemoryTarget): target is ToolInvoker {
  return (
    typeof target === 'object' &&
    typeof (target as { invoke?: unknown }).invoke === 'function' &&
    typeof (target as { manifest?: unknown }).manifest === 'function'
  );
}

/** Statuses whose web `Response` has no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * Writes one request into a fresh in-memory connection of `server`, and answers the response as
 * soon as its head is read, its body streaming behind. Aborting the request's signal closes the
 * connection, as a client going away does.
 */
async function dispatch(server: Server, request: Request): Promise<Response> {
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const url = new URL(request.url);
  const headers: OutgoingHttpHeaders = { host: url.host };
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers['content-length'] = String(body.length);
  const [clientSide, serverSide] = duplexPair();
  server.emit('connection', serverSide);
  const signal = request.signal;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = httpRequest({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
      createConnection: () => clientSide,
    });
    const close = () => {
      clientSide.destroy();
      serverSide.destroy();
    };
    const abort = () => {
      outgoing.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      close();
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    outgoing.on('error', (error) => {
      signal.removeEventListener('abort', abort);
      close();
      reject(error);
    });
    outgoing.on('response', (incoming) => {
      incoming.on('close', () => {
        signal.removeEventListener('abort', abort);
        close();
      });
      try {
        resolve(toResponse(incoming));
      } catch (error) {
        close();
        reject(error as Error);
      }
    });
    outgoing.end(body);
  });
}

function toResponse(incoming: IncomingMessage): Response {
  const headers = new Headers();
  for (let at = 0; at < incoming.rawHeaders.length; at += 2) {
    headers.append(incoming.rawHeaders[at], incoming.rawHeaders[at + 1]);
  }
  const status = incoming.statusCode ?? 500;
  if (NULL_BODY.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage, headers });
  }
  return new Response(Readable.toWeb(incoming) as ReadableStream<Uint8Array>, {
    status,
    statusText: incoming.statusMessage,
    headers,
  });
}
