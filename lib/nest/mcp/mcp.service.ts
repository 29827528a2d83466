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
import { MCP_AUTH } from './mcp-auth.js';
import { detachedListener } from '../../core/detached.js';
import type { McpBearerAuth } from '../../mcp/auth/bearer-auth.js';
import { MESSAGES, ToolsConfigurationError } from '../tools.messages.js';

/** How long the endpoint waits after a failed attempt to subscribe to its bus before the next. */
const BUS_RETRY_MS = 1000;

/**
 * Serves MCP over HTTP for the endpoint controller, with the request captured for the context
 * resolver, and a shutdown that follows Nest's lifecycle. The lists and the SDK handler are
 * prepared once, at bootstrap.
 */
@Injectable()
export class McpService
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger('ToolsMcp');
  private readonly endpoint: McpHttpEndpoint;
  /** The next attempt to subscribe to a bus that did not answer at bootstrap. */
  private resubscribe?: NodeJS.Timeout;

  constructor(
    @Inject(MCP_OPTIONS) readonly options: ResolvedMcpOptions,
    @Inject(ToolInvoker) private readonly invoker: ToolInvoker,
    @Inject(ToolRequestContext) requestContext: ToolRequestContext,
    @Inject(TOOLS_MODULE_OPTIONS) private readonly toolsOptions: ToolsModuleFactoryOptions,
    @Inject(MCP_AUTH) auth: McpBearerAuth | null,
    @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost,
  ) {
    const scope: RequestScope = {
      run: (request, answer) => requestContext.run(request, answer),
      get current() {
        return requestContext.request as HttpRequestLike | undefined;
      },
    };
    this.endpoint = new McpHttpEndpoint({
      invoker,
      options,
      scope,
      ...(auth && { auth }),
      logger: {
        error: (message, error) => this.logger.error(message, (error as Error)?.stack ?? error),
        warn: (message) => this.logger.warn(message),
        debug: (message) => this.logger.debug(message),
      },
    });
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
    this.endpoint.prepare();
    try {
      await this.endpoint.listen();
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
    this.endpoint.stopAccepting();
  }

  /**
   * The requests in flight get the grace period: their tool calls (the invoker's own close,
   * joined rather than restarted), then the writing of their answers, within the same
   * `shutdownGraceMs`; then the SDK handler is closed.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopSubscribing();
    this.endpoint.stopAccepting();
    const deadline = Date.now() + (this.toolsOptions.shutdownGraceMs ?? 10_000);
    await this.invoker.beforeApplicationShutdown();
    await this.endpoint.close(Math.max(0, deadline - Date.now()));
  }

  /** Tries the bus again in a moment, quietly, until it answers or the application stops. */
  private subscribeLater(): void {
    const attempt = setTimeout(
      detachedListener(
        async () => {
          await this.endpoint.listen();
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
    return this.endpoint.handle(request, nodeResponse(response));
  }

  /** Answers GET and DELETE with 405. */
  methodNotAllowed(response: HttpResponseLike): void {
    this.endpoint.methodNotAllowed(nodeResponse(response) as ServerResponse);
  }
}
