import type { ServerResponse } from 'node:http';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isJsonText, jsonRpcError, jsonRpcErrorBody } from '../../mcp/http-framing.js';

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
const TOO_LARGE: BodyRefusal = {
  status: 413,
  code: ProtocolErrorCode.InvalidRequest,
  message: 'Request body too large.',
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
    case 'entity.too.large':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return TOO_LARGE;
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return MEDIA_TYPE;
  }
  // Fastify's JSON parser rejects bad JSON with a bare SyntaxError carrying status 400.
  return error instanceof SyntaxError && (e.statusCode ?? e.status) === 400
    ? PARSE_ERROR
    : undefined;
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/**
 * Answers body errors on the MCP route with JSON-RPC errors instead of the framework's HTML or
 * Nest error bodies. The JSON parser runs before any route, so this is installed on the HTTP
 * instance itself: an Express error handler placed before Nest's, or Fastify hooks.
 */
export function installBodyErrorMapping(adapterType: string, instance: any, path: string): void {
  const onRoute = (url: string | undefined) => pathOf(url) === pathOf(path);
  const answer = (response: ServerResponse, refusal: BodyRefusal) =>
    jsonRpcError(response, refusal.status, refusal.code, refusal.message);

  if (adapterType === 'express') {
    instance.use(
      (
        error: unknown,
        request: { originalUrl?: string },
        response: ServerResponse,
        next: (e: unknown) => void,
      ) => {
        const refusal = onRoute(request.originalUrl) ? bodyRefusal(error) : undefined;
        if (!refusal) return next(error);
        answer(response, refusal);
      },
    );
  } else if (adapterType === 'fastify') {
    const REFUSAL = Symbol('toolwright.bodyRefusal');
    instance.addHook(
      'onError',
      (request: any, _reply: unknown, error: unknown, done: () => void) => {
        if (onRoute(request.url)) request[REFUSAL] = bodyRefusal(error);
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
