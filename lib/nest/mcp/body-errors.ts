import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { jsonTextTooDeep } from '../../core/json-depth.js';
import {
  BODY_TOO_DEEP_MESSAGE,
  BodyTooDeepError,
  isJsonText,
  jsonRpcError,
  jsonRpcErrorBody,
  refuseWhenTooDeep,
} from '../../mcp/http-framing.js';
import { MESSAGES } from '../tools.messages.js';
import type { ResolvedMcpOptions } from './mcp-options.js';
import type { McpRoute, RouteMatching } from './mcp-route.js';

/** How a body the HTTP framework refused before the endpoint ran is answered on the MCP route. */
interface BodyRefusal {
  status: number;
  code: number;
  message: string;
}

const PARSE_ERROR: BodyRefusal = {
  status: 400,
  code: ProtocolErrorCode.ParseError,
  message: 'Parse error: the body is not valid JSON.',
};
const INVALID_REQUEST: BodyRefusal = {
  status: 400,
  code: ProtocolErrorCode.InvalidRequest,
  message: 'Invalid Request: the body is not a JSON-RPC message.',
};
const TOO_DEEP: BodyRefusal = {
  status: 400,
  code: ProtocolErrorCode.ParseError,
  message: BODY_TOO_DEEP_MESSAGE,
};
const TOO_LARGE: BodyRefusal = {
  status: 413,
  code: ProtocolErrorCode.InvalidRequest,
  message: 'Request body too large.',
};
const LENGTH_MISMATCH: BodyRefusal = {
  status: 400,
  code: ProtocolErrorCode.ParseError,
  message: 'Parse error: the body does not match its Content-Length.',
};
const MEDIA_TYPE: BodyRefusal = {
  status: 415,
  code: -32000,
  message: 'Unsupported Media Type: Content-Type must be application/json',
};

/** The refusal for an error of Express's body-parser or Fastify's content-type parser. */
export function bodyRefusal(error: unknown): BodyRefusal | undefined {
  const e = error as { type?: string; code?: string; status?: number; statusCode?: number } | null;
  if (!e || typeof e !== 'object') return undefined;
  switch (e.type ?? e.code) {
    case 'entity.parse.failed':
      // Express's strict JSON parser also refuses valid JSON that is neither an object nor an
      // array (`42`, `null`): that is an invalid request, not a parse error.
      return isJsonText((e as { body?: unknown }).body) ? INVALID_REQUEST : PARSE_ERROR;
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return PARSE_ERROR;
    case BodyTooDeepError.type:
      return TOO_DEEP;
    case 'entity.too.large':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return TOO_LARGE;
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return MEDIA_TYPE;
    // Fastify 5.11 (the one @nestjs/platform-fastify 11 pins) counts a body's length after
    // decoding it, so bytes that are not UTF-8 make a body disagree with its Content-Length.
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return LENGTH_MISMATCH;
  }
  // Fastify's JSON parser rejects bad JSON with a bare SyntaxError carrying status 400.
  return error instanceof SyntaxError && (e.statusCode ?? e.status) === 400
    ? PARSE_ERROR
    : undefined;
}

/** The adapter calls the MCP body handling uses (Nest's `HttpServer`, as its adapters have them). */
export interface BodyHandlingAdapter {
  getType(): string;
  getInstance(): any;
  useBodyParser?(type: string, rawBody: boolean, options: Record<string, unknown>): unknown;
  getRouteMatchingOptions?(): RouteMatching;
}

const logger = new Logger('ToolsMcp');

/** The MCP options body handling follows. */
type BodyOptions = Pick<ResolvedMcpOptions, 'maxBodyBytes' | 'rawBody'>;

/** Whether a request says its body is `application/json` (the type Nest's JSON parser takes). */
function isJsonRequest(request: { headers: Record<string, string | string[] | undefined> }) {
  const type = request.headers['content-type'];
  if (type === 'application/json') return true;
  return typeof type === 'string' && type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** An Express middleware, as the router's layers hold them. */
type ExpressMiddleware = (
  request: {
    originalUrl?: string;
    url?: string;
    headers: Record<string, string | string[] | undefined>;
  },
  response: unknown,
  next: (error?: unknown) => void,
) => unknown;

/**
 * The MCP route reads bodies up to `maxBodyBytes`, whatever limit the application's JSON parser
 * has, and nested no deeper than `MAX_JSON_DEPTH` (a deeper body is refused on its bytes, before
 * it is parsed and before any guard runs); every other route keeps the application's own.
 *
 * Express: a JSON parser with limit `maxBodyBytes` parses the JSON requests to the MCP route in
 * place of the application's first JSON parser (Nest's, registered by `app.init()` just before
 * the modules' `configure()`, or the one given to `app.useBodyParser()`), which parses every
 * other request: both are one middleware, where the application's stood, so the application's
 * middleware registered before it still runs first, and a request passes no more middleware
 * than without the MCP route. Without any JSON parser (`bodyParser: false`) the endpoint reads
 * the body itself, within the same limit. It keeps `request.rawBody` only with `mcp.rawBody`.
 *
 * Fastify: the MCP route gets `bodyLimit: maxBodyBytes` as a route option (from an `onRoute`
 * hook, before Nest registers its routes), which Fastify applies instead of the adapter's
 * `bodyLimit` and of the limit of any content-type parser, and a `preParsing` hook that reads
 * the body's depth as it arrives.
 */
function installBodyLimit(
  adapter: BodyHandlingAdapter,
  route: McpRoute,
  { maxBodyBytes, rawBody }: BodyOptions,
) {
  const instance = adapter.getInstance();
  if (adapter.getType() === 'express') {
    // The router's layers, each with the middleware it calls.
    const stack: Array<{ handle?: ExpressMiddleware }> | undefined = instance.router?.stack;
    if (!Array.isArray(stack) || typeof adapter.useBodyParser !== 'function') {
      logger.warn(MESSAGES.bodyLimitUnavailable(maxBodyBytes));
      return;
    }
    const appParser = stack.find((layer) => layer?.handle?.name === 'jsonParser');
    if (!appParser) return;
    // Every request these parsers are given is a JSON request to the MCP route. A body as sent
    // (most are) has its depth read as the parser receives it, with no `verify` (which would
    // cost a copy of the bytes and a second decoding); a compressed one by a `verify` that sees
    // the bytes inflated, before they are parsed. With `mcp.rawBody` a `verify` keeps the bytes
    // as `rawBody` (Nest's own `rawBody` would replace the `verify`).
    type Verify = (request: { rawBody?: Buffer }, response: unknown, body: Buffer) => void;
    const parser = (verify: Verify | undefined) => {
      adapter.useBodyParser!('json', false, {
        limit: maxBodyBytes,
        type: () => true,
        ...(verify && { verify }),
      });
      return stack.pop()!.handle!;
    };
    const keep: Verify | undefined = rawBody
      ? (request, _response, body) => void (request.rawBody = body)
      : undefined;
    const encoded = parser((request, response, body) => {
      keep?.(request, response, body);
      if (jsonTextTooDeep(body)) throw new BodyTooDeepError();
    });
    const plain = parser(keep);
    const app = appParser.handle!;
    appParser.handle = function jsonParser(request, response, next) {
      if (!route.servesUrl(request.originalUrl ?? request.url) || !isJsonRequest(request)) {
        return app(request, response, next);
      }
      const encoding = request.headers['content-encoding'];
      if (encoding !== undefined && encoding !== 'identity') {
        return encoded(request, response, next);
      }
      refuseWhenTooDeep(request as unknown as Readable);
      return plain(request, response, next);
    };
  } else if (adapter.getType() === 'fastify') {
    instance.addHook(
      'onRoute',
      (options: { url?: string; bodyLimit?: number; preParsing?: unknown }) => {
        if (!route.isRoute(options.url)) return;
        options.bodyLimit = maxBodyBytes;
        const existing = options.preParsing === undefined ? [] : [options.preParsing].flat();
        options.preParsing = [...existing, checkDepth];
      },
    );
  }
}

/** Fastify's `preParsing` hook of the MCP route: the body fails as soon as it nests too deep. */
function checkDepth(
  _request: unknown,
  _reply: unknown,
  payload: Readable,
  done: (error: null, payload: Readable) => void,
): void {
  refuseWhenTooDeep(payload);
  done(null, payload);
}

/**
 * Answers body errors on the MCP route with JSON-RPC errors instead of the framework's HTML or
 * Nest error bodies. The JSON parser runs before any route, so this is installed on the HTTP
 * instance itself: an Express error handler placed before Nest's, or Fastify hooks. On Express
 * the request's path is compared with the route's as the router compares them; on Fastify the
 * route the request was routed to is the MCP route.
 */
function installBodyErrorMapping(adapter: BodyHandlingAdapter, route: McpRoute): void {
  const instance = adapter.getInstance();
  const answer = (response: ServerResponse, refusal: BodyRefusal) =>
    jsonRpcError(response, refusal.status, refusal.code, refusal.message);

  if (adapter.getType() === 'express') {
    instance.use(
      (
        error: unknown,
        request: { originalUrl?: string },
        response: ServerResponse,
        next: (e: unknown) => void,
      ) => {
        const refusal = route.servesUrl(request.originalUrl) ? bodyRefusal(error) : undefined;
        if (!refusal) return next(error);
        answer(response, refusal);
      },
    );
  } else if (adapter.getType() === 'fastify') {
    const REFUSAL = Symbol('toolwright.bodyRefusal');
    instance.addHook(
      'onError',
      (request: any, _reply: unknown, error: unknown, done: () => void) => {
        if (route.isRoute(request.routeOptions?.url)) request[REFUSAL] = bodyRefusal(error);
        done();
      },
    );
    instance.addHook(
      'onSend',
      (request: any, reply: any, payload: unknown, done: (e: null, p: unknown) => void) => {
        const refusal: BodyRefusal | undefined = request[REFUSAL];
        if (!refusal) return done(null, payload);
        reply.code(refusal.status).header('content-type', 'application/json');
        done(null, jsonRpcErrorBody(refusal.code, refusal.message));
      },
    );
  }
}

/**
 * Body handling of the MCP route: its own body limit (`mcp.maxBodyBytes`) and JSON-RPC answers
 * to body errors. Installed from `ToolsModule.configure()`, which runs after Nest's body parsers
 * are installed and before its routes and exception handler.
 */
export function installMcpBodyHandling(
  adapter: BodyHandlingAdapter,
  route: McpRoute,
  options: BodyOptions,
): void {
  installBodyLimit(adapter, route, options);
  installBodyErrorMapping(adapter, route);
}
