import type { ServerResponse } from 'node:http';
import type { McpBearerAuth } from '../../mcp/auth/bearer-auth.js';
import {
  abortedOnDisconnect,
  toWebRequest,
  writeWebResponse,
  type HttpRequestLike,
} from '../../mcp/http-framing.js';
import type { BodyHandlingAdapter } from './body-errors.js';
import type { McpRoute } from './mcp-route.js';

/** Injection token of the MCP endpoint's `McpBearerAuth` (`null` without `mcp.auth`). */
export const MCP_AUTH = Symbol.for('toolwright.mcpAuth');

type ExpressLayer = { handle?: { name?: string } };
type Next = () => void;

/**
 * Signs in the requests to the MCP route before their body is read, on every method, and serves
 * the protected resource metadata, on the HTTP instance itself: ahead of the application's
 * guards, of any body parser and of the route. Express: a middleware placed before the first JSON
 * parser. Fastify: an `onRequest` hook on the MCP route (added as Nest registers it) and a route
 * for the metadata.
 */
export function installMcpAuth(
  adapter: BodyHandlingAdapter,
  route: McpRoute,
  auth: McpBearerAuth,
): void {
  const instance = adapter.getInstance();
  const metadata = (request: HttpRequestLike, response: ServerResponse) => {
    const { request: webRequest } = toWebRequest(request, abortedOnDisconnect(response).signal);
    return auth.metadataResponse(webRequest).then((answer) => writeWebResponse(response, answer));
  };
  if (adapter.getType() === 'express') {
    instance.use(function toolwrightMcpAuth(
      request: HttpRequestLike & { originalUrl: string },
      response: ServerResponse,
      next: Next,
    ) {
      if (auth.servesMetadata(request.originalUrl)) return void metadata(request, response);
      if (!route.servesUrl(request.originalUrl)) return next();
      auth.authenticateThen(request, (verified) => {
        // The client left while its token was being verified: nothing is left to answer.
        if (response.destroyed) return;
        if (!(verified instanceof Response)) return next();
        request.raw?.resume();
        void writeWebResponse(response, verified);
      });
    });
    // Moved ahead of the JSON parsers (the application's and the MCP route's own).
    const stack: ExpressLayer[] | undefined = instance.router?.stack;
    const parserAt = stack?.findIndex((layer) => layer?.handle?.name === 'jsonParser') ?? -1;
    if (stack && parserAt >= 0) stack.splice(parserAt, 0, stack.pop()!);
  } else if (adapter.getType() === 'fastify') {
    instance.addHook('onRoute', (options: { url?: string; onRequest?: unknown }) => {
      if (!route.isRoute(options.url)) return;
      // A callback hook rather than an async one: a token verified before costs no promise.
      const gate = (
        request: HttpRequestLike & { raw: HttpRequestLike },
        reply: { raw: ServerResponse; hijack(): void },
        done: (error?: unknown) => void,
      ): void => {
        auth.authenticateThen(request, (verified) => {
          if (!(verified instanceof Response) || reply.raw.destroyed) return done();
          // Refused: the answer is written here; the hijacked request goes no further.
          reply.hijack();
          writeWebResponse(reply.raw, verified).then(() => done(), done);
        });
      };
      const existing = options.onRequest === undefined ? [] : [options.onRequest].flat();
      options.onRequest = [gate, ...existing];
    });
    const path = auth.metadataPath;
    instance.route({
      method: ['GET', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'],
      url: auth.derivesResource ? `${path}/*` : path,
      handler: (request: HttpRequestLike, reply: { raw: ServerResponse; hijack(): void }) => {
        reply.hijack();
        return metadata(request, reply.raw);
      },
    });
  }
}
