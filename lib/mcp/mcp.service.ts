import type { ServerResponse } from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  validateHostHeader,
  validateOriginHeader,
  isLegacyRequest,
  originValidationResponse,
  ProtocolErrorCode,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { Shutdown } from '../core/shutdown.js';
import { ToolInvoker } from '../nest/tool-invoker.service.js';
import { ToolRequestContext } from '../nest/request-context.js';
import {
  abortedOnDisconnect,
  jsonByteLength,
  parsedJsonBody,
  jsonRpcError,
  nodeResponse,
  toWebRequest,
  writeWebResponse,
  type HttpRequestLike,
  type HttpResponseLike,
} from './mcp-http.js';
import type { ResolvedMcpOptions } from './mcp-options.interface.js';
import { answerDirectly, directRequest, writeListAnswer } from './mcp-direct.js';
import { McpToolSurface } from './mcp-server.factory.js';
import { InFlightCalls } from './in-flight-calls.js';
import { MCP_OPTIONS } from './mcp.constants.js';
import { TOOLS_MODULE_OPTIONS } from '../nest/tools.constants.js';
import type { ToolsModuleOptions } from '../nest/interfaces/tools-module-options.interface.js';

/**
 * Serves MCP over HTTP for the endpoint controller: Host and Origin checks, the body bound,
 * both protocol eras through the SDK's stateless handler, and the response (JSON or SSE).
 * The handler and the `tools/list` entries are prepared once, at bootstrap.
 */
@Injectable()
export class McpService
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger('ToolsMcp');
  private prepared?: { surface: McpToolSurface; handler: McpHttpHandler };
  private readonly inFlight = new InFlightCalls();
  private readonly hosts: string[];
  private readonly origins: string[];
  /**
   * The requests being answered, so a shutdown lets their answers be written. Nothing to abort
   * per request: closing the SDK handler afterwards aborts what it still serves.
   */
  private readonly answering = new Shutdown();
  private closing = false;

  constructor(
    @Inject(MCP_OPTIONS) readonly options: ResolvedMcpOptions,
    @Inject(ToolInvoker) private readonly invoker: ToolInvoker,
    @Inject(ToolRequestContext) private readonly requestContext: ToolRequestContext,
    @Inject(TOOLS_MODULE_OPTIONS) private readonly toolsOptions: ToolsModuleOptions,
  ) {
    this.hosts = options.allowedHosts === false ? [] : [...options.allowedHosts];
    this.origins = options.allowedOrigins === false ? [] : [...options.allowedOrigins];
  }

  onApplicationBootstrap(): void {
    this.prepare();
  }

  /**
   * Shutdown starts here (the invoker starts draining its calls in this same hook): from now
   * on new requests are answered 503, rather than reaching an invoker that refuses their calls.
   */
  onModuleDestroy(): void {
    this.closing = true;
  }

  /**
   * New requests are answered 503 from now on. Closing the SDK handler aborts the requests it
   * is serving, so the requests in flight get the grace period first: their tool calls (the
   * invoker's own close, which ToolsModule starts too, joined rather than restarted), then the
   * writing of their answers, within the same `shutdownGraceMs`.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + (this.toolsOptions.shutdownGraceMs ?? 10_000);
    await this.invoker.beforeApplicationShutdown();
    await this.answering.close(deadline - Date.now());
    await this.prepared?.handler.close();
  }

  /**
   * Answers one POST to the endpoint, whatever happens: it never throws and never rejects. An
   * answer written at once (a list every caller sees, a refusal) returns nothing to await.
   */
  handle(request: HttpRequestLike, response: HttpResponseLike): Promise<void> | void {
    const target = nodeResponse(response);
    try {
      const pending = this.serve(request, target);
      if (pending) return this.settle(pending, target);
    } catch (error) {
      this.failed(error, target);
    }
  }

  /** Waits for an answer still being written, tracked so that a shutdown lets it finish. */
  private async settle(pending: Promise<void>, target: ServerResponse): Promise<void> {
    const answering = this.answering.enter();
    try {
      await pending;
    } catch (error) {
      this.failed(error, target);
    } finally {
      this.answering.leave(answering);
    }
  }

  /**
   * Nothing the endpoint does should throw; if it does, the client still gets a JSON-RPC error
   * (Nest's own filter could not answer a hijacked Fastify reply) and no detail.
   */
  private failed(error: unknown, target: ServerResponse): void {
    this.logger.error('[toolwright] MCP request failed:', (error as Error)?.stack ?? error);
    if (!target.headersSent) {
      jsonRpcError(target, 500, ProtocolErrorCode.InternalError, 'Internal error');
    } else if (!target.writableEnded) {
      target.destroy();
    }
  }

  private serve(request: HttpRequestLike, target: ServerResponse): Promise<void> | void {
    if (this.closing) {
      return jsonRpcError(target, 503, -32000, 'Server is shutting down; retry the request.', {
        'retry-after': '1',
      });
    }
    const { maxBodyBytes } = this.options;
    const declared = request.headers['content-length'];
    const parsedBody = parsedJsonBody(request);
    // A body the framework parsed without a declared length (chunked) is measured as JSON.
    const size =
      declared !== undefined
        ? Number(declared)
        : parsedBody !== undefined
          ? jsonByteLength(parsedBody, maxBodyBytes)
          : 0;
    if (size > maxBodyBytes) {
      return jsonRpcError(target, 413, ProtocolErrorCode.InvalidRequest, 'Request body too large.');
    }
    if (!this.hostAndOriginAllowed(request)) {
      const { signal } = abortedOnDisconnect(target);
      const rejected = this.rejection(toWebRequest(request, signal).request);
      if (rejected) return writeWebResponse(target, rejected);
    }
    const { surface, handler } = this.prepare();
    const direct = this.options.directAnswers
      ? directRequest(request, parsedBody, surface, this.options.protocol)
      : undefined;
    if (direct) {
      // A list every caller sees needs no request context and nothing awaited.
      const shared = direct.method === 'tools/list' ? surface.sharedList(direct.era) : undefined;
      if (shared) return writeListAnswer(direct, shared, surface, target);
      return this.requestContext.run(request, () => answerDirectly(direct, surface, target));
    }
    return this.throughSdk(request, parsedBody, handler, target);
  }

  private async throughSdk(
    request: HttpRequestLike,
    parsedBody: unknown,
    handler: McpHttpHandler,
    target: ServerResponse,
  ): Promise<void> {
    const { request: webRequest } = toWebRequest(request, abortedOnDisconnect(target).signal);
    if (this.options.protocol === 'legacy' && !(await isLegacyRequest(webRequest, parsedBody))) {
      return jsonRpcError(
        target,
        400,
        ProtocolErrorCode.UnsupportedProtocolVersion,
        'Unsupported protocol version: this endpoint serves the 2025 revisions only.',
      );
    }
    const answer = await this.requestContext.run(request, () =>
      handler.fetch(webRequest, { parsedBody }),
    );
    await writeWebResponse(target, answer);
  }

  /** Answers GET and DELETE: a stateless endpoint has no session stream to open or close. */
  methodNotAllowed(response: HttpResponseLike): void {
    jsonRpcError(
      nodeResponse(response),
      405,
      ProtocolErrorCode.InvalidRequest,
      'Method not allowed.',
      {
        allow: 'POST',
      },
    );
  }

  /** Who is calling: the credential and address of the current request. */
  private caller(): string {
    const request = this.requestContext.request as HttpRequestLike | undefined;
    const socket = (request?.raw ?? (request as { socket?: { remoteAddress?: string } }))?.socket;
    return `${request?.headers.authorization ?? ''}|${socket?.remoteAddress ?? ''}`;
  }

  /** The Host and Origin checks on the Node headers; the SDK words the refusal (see rejection). */
  private hostAndOriginAllowed(request: HttpRequestLike): boolean {
    const { allowedHosts, allowedOrigins } = this.options;
    const { host, origin } = request.headers;
    return (
      (allowedHosts === false || validateHostHeader(host, this.hosts).ok) &&
      (allowedOrigins === false ||
        origin === undefined ||
        validateOriginHeader(origin, this.origins).ok)
    );
  }

  private rejection(request: Request): Response | undefined {
    const { allowedHosts, allowedOrigins } = this.options;
    return (
      (allowedHosts === false ? undefined : hostHeaderValidationResponse(request, this.hosts)) ??
      (allowedOrigins === false ? undefined : originValidationResponse(request, this.origins))
    );
  }

  private prepare(): { surface: McpToolSurface; handler: McpHttpHandler } {
    if (!this.prepared) {
      const surface = new McpToolSurface({
        invoker: this.invoker,
        options: this.options,
        logger: { error: (message, error) => this.logger.error(message, (error as Error)?.stack) },
        cancellation: { caller: () => this.caller(), calls: this.inFlight },
      });
      const handler = createMcpHandler(surface.serverFactory, {
        legacy: this.options.protocol === 'modern' ? 'reject' : 'stateless',
        maxRequestBodySize: this.options.maxBodyBytes,
        onerror: (error) => this.logger.debug(`MCP request rejected: ${error.message}`),
      });
      this.prepared = { surface, handler };
    }
    return this.prepared;
  }
}
