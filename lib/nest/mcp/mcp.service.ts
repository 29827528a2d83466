import type { ServerResponse } from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InMemoryInstanceBus } from '../../core/instance-bus.js';
import { McpHttpEndpoint, type RequestScope } from '../../mcp/http-endpoint.js';
import {
  nodeResponse,
  type HttpRequestLike,
  type HttpResponseLike,
} from '../../mcp/http-framing.js';
import type { ToolsModuleFactoryOptions } from '../interfaces/tools-module-options.interface.js';
import { ToolRequestContext } from '../request-context.js';
import { ToolInvoker } from '../tool-invoker.service.js';
import { TOOLS_MODULE_OPTIONS } from '../tools.constants.js';
import { MCP_OPTIONS } from './mcp.constants.js';
import type { ResolvedMcpOptions } from './mcp-options.js';
import { MCP_ENDPOINTS, type McpEndpointSetup } from './mcp-endpoints.js';
import type { McpRoute } from './mcp-route.js';
import { detachedListener } from '../../core/detached.js';
import { MESSAGES, ToolsConfigurationError } from '../tools.messages.js';

/** How long the endpoint waits after a failed attempt to subscribe to its bus before the next. */
const BUS_RETRY_MS = 1000;

/**
 * Serves MCP over HTTP for the endpoint controllers (`mcp`, and each of `mcp.endpoints`), with
 * the request captured for the context resolver, and a shutdown that follows Nest's lifecycle.
 * The lists and the SDK handlers are prepared once, at bootstrap.
 */
@Injectable()
export class McpService
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger('ToolsMcp');
  /** One endpoint per MCP server of the application, `mcp`'s first. */
  private readonly endpoints: readonly McpHttpEndpoint[];
  /** The routes of `endpoints`, in the same order, once the module has worked them out. */
  private routes: readonly McpRoute[] = [];
  /** The next attempt to subscribe to a bus that did not answer at bootstrap. */
  private resubscribe?: NodeJS.Timeout;

  constructor(
    @Inject(MCP_OPTIONS) readonly options: ResolvedMcpOptions,
    @Inject(ToolInvoker) private readonly invoker: ToolInvoker,
    @Inject(ToolRequestContext) requestContext: ToolRequestContext,
    @Inject(TOOLS_MODULE_OPTIONS) private readonly toolsOptions: ToolsModuleFactoryOptions,
    @Inject(MCP_ENDPOINTS) setups: readonly McpEndpointSetup[],
    @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost,
  ) {
    const scope: RequestScope = {
      run: (request, answer) => requestContext.run(request, answer),
      get current() {
        return requestContext.request as HttpRequestLike | undefined;
      },
    };
    const logger = {
      error: (message: string, error?: unknown) =>
        this.logger.error(message, (error as Error)?.stack ?? error),
      warn: (message: string) => this.logger.warn(message),
      debug: (message: string) => this.logger.debug(message),
    };
    // One bus for the application's endpoints, unless each is given its own: a requestState
    // spent on one endpoint is spent on all of them.
    const bus = setups.length > 1 ? new InMemoryInstanceBus() : undefined;
    this.endpoints = setups.map(
      ({ name, options: own, auth }) =>
        new McpHttpEndpoint({
          invoker,
          options: own.bus || !bus ? own : { ...own, bus },
          scope,
          name,
          ...(auth && { auth }),
          logger,
        }),
    );
  }

  /** The routes of the endpoints (`mcp`'s first), which requests are told apart by. */
  useRoutes(routes: readonly McpRoute[]): void {
    this.routes = routes;
  }

  /** The endpoint a request is for: the one whose route serves its URL, else `mcp`'s. */
  private endpointOf(request: HttpRequestLike): McpHttpEndpoint {
    const { endpoints, routes } = this;
    if (endpoints.length === 1) return endpoints[0];
    const url = request.originalUrl ?? request.url;
    const index = routes.findIndex((route) => route.servesUrl(url));
    return endpoints[index] ?? endpoints[0];
  }

  /**
   * Prepares the endpoint in an application that serves HTTP, and subscribes to what other
   * instances pass on; an application context (the command line, a worker) serves no MCP, so
   * it prepares nothing and warns of nothing. Options the prepared lists refuse fail the
   * bootstrap; a bus that does not answer fails it with `mcp.busRequired`, otherwise it is
   * logged once, and subscribed to once it answers.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.adapterHost?.httpAdapter) return;
    // A configuration the lists refuse (a public cache hint on a list per caller) fails here.
    for (const endpoint of this.endpoints) endpoint.prepare();
    try {
      await Promise.all(this.endpoints.map((endpoint) => endpoint.listen()));
    } catch (error) {
      const reason = (error as Error)?.message ?? String(error);
      if (this.options.busRequired) {
        throw new ToolsConfigurationError(MESSAGES.busRequired(reason), { cause: error });
      }
      this.logger.error(MESSAGES.busUnreachable(reason));
      this.subscribeLater();
    }
  }

  /**
   * Shutdown starts here (the invoker starts draining its calls in this same hook): from now
   * on new requests are answered 503, rather than reaching an invoker that refuses their calls.
   */
  onModuleDestroy(): void {
    this.stopSubscribing();
    for (const endpoint of this.endpoints) endpoint.stopAccepting();
  }

  /**
   * The requests in flight get the grace period: their tool calls (the invoker's own close,
   * joined rather than restarted), then the writing of their answers, within the same
   * `shutdownGraceMs`; then the SDK handler is closed.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopSubscribing();
    for (const endpoint of this.endpoints) endpoint.stopAccepting();
    const deadline = Date.now() + (this.toolsOptions.shutdownGraceMs ?? 10_000);
    await this.invoker.beforeApplicationShutdown();
    const graceMs = Math.max(0, deadline - Date.now());
    await Promise.all(this.endpoints.map((endpoint) => endpoint.close(graceMs)));
  }

  /** Tries the bus again in a moment, quietly, until it answers or the application stops. */
  private subscribeLater(): void {
    const attempt = setTimeout(
      detachedListener(
        async () => {
          await Promise.all(this.endpoints.map((endpoint) => endpoint.listen()));
          this.logger.log(MESSAGES.busSubscribed());
        },
        (error) => {
          this.logger.debug(`MCP instance bus still unreachable: ${(error as Error)?.message}`);
          if (this.resubscribe === attempt) this.subscribeLater();
        },
      ),
      BUS_RETRY_MS,
    ).unref();
    this.resubscribe = attempt;
  }

  private stopSubscribing(): void {
    clearTimeout(this.resubscribe);
    this.resubscribe = undefined;
  }

  /** Answers one POST to the endpoint, whatever happens: it never throws and never rejects. */
  handle(request: HttpRequestLike, response: HttpResponseLike): Promise<void> | void {
    return this.endpointOf(request).handle(request, nodeResponse(response));
  }

  /** Answers GET and DELETE with 405. */
  methodNotAllowed(response: HttpResponseLike): void {
    this.endpoints[0].methodNotAllowed(nodeResponse(response) as ServerResponse);
  }
}
