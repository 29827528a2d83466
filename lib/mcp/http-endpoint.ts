import type { ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolErrorCode,
  type AuthInfo,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { catalogInvoker, type CatalogInvoker } from '../core/catalog-invoker.js';
import { Drain } from '../core/drain.js';
import { InMemoryInstanceBus, type InstanceBus } from '../core/instance-bus.js';
import { missingScopes } from '../core/principal.js';
import type { ToolInvoker } from '../core/invoker.js';
import { CancellableCalls } from './eras/2025-11-25/cancellation.js';
import { McpTasks } from './tasks.js';
import { DirectAnswers } from './direct-answers.js';
import type { ResolvedMcpEndpointOptions } from './endpoint-options.js';
import { selectedInvoker } from './endpoint-selection.js';
import { HeaderChecks } from './host-checks.js';
import {
  abortedOnDisconnect,
  jsonByteLength,
  jsonRpcError,
  parsedJsonBody,
  toWebRequest,
  writeWebResponse,
  type HttpRequestLike,
} from './http-framing.js';
import { McpToolSurface, type McpServerFactoryOptions } from './tool-surface.js';
import { httpNetwork, startMcpRequestSpan } from './telemetry.js';
import type { McpBearerAuth } from './auth/bearer-auth.js';
import { principalIdentity } from '../core/caller-identity.js';
import type { ToolContext } from '../core/types.js';

/** The request an answer is being written for, as its host keeps it (Nest: the request context). */
export interface RequestScope {
  /** Runs `answer` with `request` as the current request. */
  run<T>(request: HttpRequestLike, answer: () => T): T;
  /** The current request, inside `run`. */
  readonly current: HttpRequestLike | undefined;
}

/** What {@link McpHttpEndpoint} serves, and how it reports. */
export interface McpHttpEndpointSettings {
  readonly invoker: ToolInvoker;
  readonly options: ResolvedMcpEndpointOptions;
  readonly logger: {
    error(message: string, error?: unknown): void;
    warn?(message: string): void;
    debug?(message: string): void;
  };
  readonly scope: RequestScope;
  /** The explicit context of the calls, read per request (see `McpServerFactoryOptions.context`). */
  readonly context?: McpServerFactoryOptions['context'];
  /**
   * Signs requests in. The host calls `authenticate` before it reads the body; a request that
   * reaches the endpoint unverified is verified here.
   */
  readonly auth?: McpBearerAuth;
  /** How configuration messages name this endpoint's options. @default 'mcp' */
  readonly name?: string;
}

/**
 * MCP over HTTP, whatever the host: Host and Origin checks, the body bound, both protocol eras
 * (a request the endpoint can answer exactly as the SDK would is answered directly; every other
 * one goes through the SDK's stateless handler), `405` for `GET`/`DELETE`, and a graceful close.
 * The Nest module and `createMcpHttpHandler` both serve through it.
 */
export class McpHttpEndpoint {
  private prepared?: { surface: McpToolSurface; handler: McpHttpHandler };
  /** The invoker with its catalog, narrowed once (a Nest invoker is ready only after init). */
  private runner?: CatalogInvoker;
  private readonly bus: InstanceBus;
  private readonly cancellable: CancellableCalls;
  /** The tasks of the tools that declare `task`, when any does (made with the surface). */
  private tasks?: McpTasks;
  /** The bus subscriptions, once asked for: each resolves to the function that ends it. */
  private listening?: Promise<Array<() => Promise<void>>>;
  private readonly headers: HeaderChecks;
  /** The direct path, with what it remembers for this endpoint's answers. */
  private readonly directPath: DirectAnswers;
  /** Each request's caller identity, once asked for (see {@link identity}). */
  private readonly identities = new WeakMap<object, Promise<string | undefined>>();
  /** The answers being written, so a shutdown lets them finish. */
  private readonly answering = new Drain();
  private closing = false;

  constructor(private readonly settings: McpHttpEndpointSettings) {
    const { options, logger } = settings;
    this.bus = options.bus ?? new InMemoryInstanceBus();
    this.cancellable = new CancellableCalls(this.bus, logger);
    this.headers = new HeaderChecks(options, (message) =>
      logger.warn ? logger.warn(message) : logger.error(message),
    );
    this.directPath = new DirectAnswers(settings.options);
  }

  /** The invoker this endpoint serves: the application's, narrowed to `select` when given. */
  private catalogInvoker(): CatalogInvoker {
    if (!this.runner) {
      const { invoker, options, name = 'mcp' } = this.settings;
      const whole = catalogInvoker(invoker);
      this.runner = options.select ? selectedInvoker(whole, options.select, name) : whole;
    }
    return this.runner;
  }

  /** Builds the prepared lists and the SDK handler now rather than on the first request. */
  prepare(): { surface: McpToolSurface; handler: McpHttpHandler } {
    if (!this.prepared) {
      const { options, logger, context, auth, scope } = this.settings;
      const invoker = this.catalogInvoker();
      if (invoker.manifest('MCP').some((tool) => tool.task !== undefined)) {
        this.tasks = new McpTasks(options.tasks ?? {}, this.bus, logger);
      }
      const surface = new McpToolSurface({
        invoker,
        options,
        logger,
        context,
        ...(auth && {
          principal: () => {
            const verified = auth.verifiedAuth(scope.current);
            return verified && auth.principalOf(verified);
          },
        }),
        identity: () => this.identity(scope.current),
        cancellation: { calls: this.cancellable, bus: this.bus },
        ...(this.tasks && { tasks: { service: this.tasks } }),
        network: () => httpNetwork(scope.current),
        scaled: true,
      });
      const handler = createMcpHandler(surface.serverFactory, {
        legacy: options.protocol === 'modern' ? 'reject' : 'stateless',
        maxRequestBodySize: options.maxBodyBytes,
        onerror: (error) => logger.debug?.(`MCP request rejected: ${error.message}`),
      });
      this.prepared = { surface, handler };
    }
    return this.prepared;
  }

  /**
   * Prepares the endpoint and starts hearing what other instances pass on (2025-era
   * cancellations and answers, task cancellations, ends and answers); resolves once the bus
   * subscriptions are in place. When one cannot subscribe, the others end and it rejects; a
   * later call tries again.
   */
  listen(): Promise<void> {
    const { surface } = this.prepare();
    this.listening ??= Promise.allSettled([
      this.cancellable.listen(),
      ...(this.tasks ? [this.tasks.listen()] : []),
      ...(surface.legacyElicitation ? [surface.legacyElicitation.listen()] : []),
    ]).then(async (subscriptions) => {
      const stops = subscriptions.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const failed = subscriptions.find((s) => s.status === 'rejected');
      if (!failed) return stops;
      await Promise.allSettled(stops.map((stop) => stop()));
      // Nothing is left subscribed: the next listen() tries again.
      this.listening = undefined;
      throw failed.reason;
    });
    return this.listening.then(() => undefined);
  }

  /**
   * Answers one POST, whatever happens: it never throws and never rejects. An answer written at
   * once (a list every caller sees, a refusal) returns nothing to await.
   */
  handle(request: HttpRequestLike, target: ServerResponse): Promise<void> | void {
    try {
      const pending = this.serve(request, target);
      if (pending) return this.awaitAnswer(pending, target);
    } catch (error) {
      this.failed(error, target);
    }
  }

  /** Answers GET and DELETE: a stateless endpoint has no session stream to open or close. */
  methodNotAllowed(target: ServerResponse): void {
    jsonRpcError(target, 405, ProtocolErrorCode.InvalidRequest, 'Method not allowed.', {
      allow: 'POST',
    });
  }

  /** From now on new requests are answered 503 (retryable). */
  stopAccepting(): void {
    this.closing = true;
  }

  /**
   * Stops accepting requests, lets the answers being written finish within `graceMs`, then
   * closes the SDK handler (which aborts what it still serves).
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + graceMs;
    await this.answering.close(graceMs);
    // The tasks' ends are stored before the bus (which announces them) is let go.
    await this.tasks?.idle(Math.max(0, deadline - Date.now()));
    await this.prepared?.handler.close();
    const listening = this.listening;
    this.listening = undefined;
    const stops = await listening?.catch(() => []);
    await Promise.allSettled((stops ?? []).map((stop) => stop()));
  }

  /** Waits for an answer still being written, tracked so that a shutdown lets it finish. */
  private async awaitAnswer(pending: Promise<unknown>, target: ServerResponse): Promise<void> {
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
   * (a host's own error handling could not answer a hijacked response) and no detail.
   */
  private failed(error: unknown, target: ServerResponse): void {
    this.settings.logger.error('[toolwright] MCP request failed:', error);
    if (!target.headersSent) {
      jsonRpcError(target, 500, ProtocolErrorCode.InternalError, 'Internal error');
    } else if (!target.writableEnded) {
      target.destroy();
    }
  }

  private serve(request: HttpRequestLike, target: ServerResponse): Promise<unknown> | void {
    if (this.closing) {
      return jsonRpcError(target, 503, -32000, 'Server is shutting down; retry the request.', {
        'retry-after': '1',
      });
    }
    const { options } = this.settings;
    const { maxBodyBytes } = options;
    const declared = request.headers['content-length'];
    const parsedBody = parsedJsonBody(request);
    // A body the host parsed without a declared length (chunked) is measured as JSON.
    const size =
      declared !== undefined
        ? Number(declared)
        : parsedBody !== undefined
          ? jsonByteLength(parsedBody, maxBodyBytes)
          : 0;
    if (size > maxBodyBytes) {
      return jsonRpcError(target, 413, ProtocolErrorCode.InvalidRequest, 'Request body too large.');
    }
    if (!this.headers.allowed(request)) {
      const { signal } = abortedOnDisconnect(target);
      const rejected = this.headers.rejection(request, toWebRequest(request, signal).request);
      if (rejected) return writeWebResponse(target, rejected);
    }
    const { auth } = this.settings;
    if (auth) {
      const verified = auth.verifiedAuth(request);
      if (!verified) return this.authenticateFirst(auth, request, target);
      const challenge = this.scopeChallenge(auth, verified, request, parsedBody);
      if (challenge) return writeWebResponse(target, challenge);
    }
    const { surface } = this.prepare();
    const { legacyElicitation } = surface;
    if (
      legacyElicitation &&
      options.protocol !== 'modern' &&
      legacyElicitation.concerns(parsedBody)
    ) {
      return this.legacyElicitationMessage(legacyElicitation, request, parsedBody, target);
    }
    return this.answer(request, parsedBody, target);
  }

  /**
   * A 2025-era message elicitation keeps state for: an answer to a question (a POST of its own,
   * which the SDK would drop) is settled and answered `202`; an `initialize` has its declared
   * capability noted, then is answered as usual. Both under the caller's identity.
   */
  private async legacyElicitationMessage(
    legacyElicitation: NonNullable<McpToolSurface['legacyElicitation']>,
    request: HttpRequestLike,
    body: unknown,
    target: ServerResponse,
  ): Promise<unknown> {
    const caller = await this.identity(request);
    const settled = legacyElicitation.settle(body, caller);
    if (settled) {
      return settled.then(
        () => void target.writeHead(202).end(),
        (error: unknown) => this.busFailed('answer', error, target),
      );
    }
    await legacyElicitation.remember(caller, body);
    return this.answer(request, body, target);
  }

  /** Answers a request that passed the checks: directly when it can, otherwise through the SDK. */
  private answer(
    request: HttpRequestLike,
    parsedBody: unknown,
    target: ServerResponse,
  ): Promise<unknown> | void {
    const { options } = this.settings;
    const { surface, handler } = this.prepare();
    const direct = options.directAnswers
      ? this.directPath.request(request, parsedBody, surface)
      : undefined;
    if (direct) {
      const { telemetry } = surface;
      const span = telemetry
        ? startMcpRequestSpan(telemetry, direct, surface.catalog, () => httpNetwork(request))
        : undefined;
      // A list every caller sees needs no request scope and nothing awaited.
      const shared =
        direct.method === 'tools/list'
          ? surface.sharedList(direct.era)
          : direct.method === 'tools/call' || direct.method === 'resources/read'
            ? undefined
            : surface.sharedListOf(direct.method);
      if (shared) {
        this.directPath.writeList(direct, shared, target);
        return span?.end();
      }
      return this.inScope(request, () => this.directPath.answer(direct, surface, target, span));
    }
    return this.throughSdk(request, parsedBody, handler, target);
  }

  /** Runs `answer` with `request` as the current request, unless its host made it current already. */
  private inScope<T>(request: HttpRequestLike, answer: () => T): T {
    const { scope } = this.settings;
    return scope.current === request ? answer() : scope.run(request, answer);
  }

  /**
   * The answer to a POST whose message had to cross instances and could not: `503`, retryable,
   * so the client may send it again.
   */
  private busFailed(what: string, error: unknown, target: ServerResponse): void {
    this.settings.logger.error(
      `[toolwright] MCP: a 2025-era ${what} could not be passed to the other instances:`,
      error,
    );
    jsonRpcError(
      target,
      503,
      ProtocolErrorCode.InternalError,
      `The ${what} could not be passed to the instance running the call; retry it.`,
      { 'retry-after': '1' },
    );
  }

  /** A request its host did not sign in (an application's own route): verified here, then served. */
  private async authenticateFirst(
    auth: McpBearerAuth,
    request: HttpRequestLike,
    target: ServerResponse,
  ): Promise<void> {
    const verified = await auth.authenticate(request);
    if (verified instanceof Response) return writeWebResponse(target, verified);
    await this.serve(request, target);
  }

  /**
   * The `403 insufficient_scope` answer to a request that calls a tool whose scopes its token
   * lacks, so that the client can step up before anything runs (the runner refuses such a call
   * anyway, on every surface).
   */
  private scopeChallenge(
    auth: McpBearerAuth,
    verified: AuthInfo,
    request: HttpRequestLike,
    body: unknown,
  ): Response | undefined {
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params, id } = (message ?? {}) as {
        method?: unknown;
        params?: { name?: unknown; uri?: unknown };
        id?: unknown;
      };
      const scopes = this.requiredScopes(method, params);
      if (!scopes) continue;
      if (missingScopes(scopes, verified.scopes).length > 0) {
        return auth.insufficientScope(verified, scopes, id, request);
      }
    }
    return undefined;
  }

  /** The scopes a `tools/call`, `resources/read` or `prompts/get` needs, if it needs any. */
  private requiredScopes(
    method: unknown,
    params: { name?: unknown; uri?: unknown } | undefined,
  ): readonly string[] | undefined {
    const invoker = this.catalogInvoker();
    if (method === 'tools/call' && typeof params?.name === 'string') {
      return invoker.find(params.name, 'MCP')?.scopes;
    }
    if (method === 'prompts/get' && typeof params?.name === 'string') {
      return this.catalogInvoker().catalog.prompt(params.name, 'MCP')?.spec.scopes;
    }
    if (method === 'resources/read' && typeof params?.uri === 'string') {
      return this.catalogInvoker().catalog.resource(params.uri, 'MCP')?.tool.spec.scopes;
    }
    return undefined;
  }

  private async throughSdk(
    request: HttpRequestLike,
    parsedBody: unknown,
    handler: McpHttpHandler,
    target: ServerResponse,
  ): Promise<void> {
    const { request: webRequest } = toWebRequest(request, abortedOnDisconnect(target).signal);
    if (
      this.settings.options.protocol === 'legacy' &&
      !(await isLegacyRequest(webRequest, parsedBody))
    ) {
      return jsonRpcError(
        target,
        400,
        ProtocolErrorCode.UnsupportedProtocolVersion,
        'Unsupported protocol version: this endpoint serves the 2025 revisions only.',
      );
    }
    const answer = await this.inScope(request, () => handler.fetch(webRequest, { parsedBody }));
    await writeWebResponse(target, answer);
  }

  /**
   * Who is calling, worked out once per request (its answers, cancellations, tasks and
   * questions all ask): a signed-in caller's verified principal, else what `identify` says of
   * the request. `undefined` when the request names nobody, or `identify` failed (a context
   * that could not be resolved fails the request's calls the same way).
   */
  private identity(request: HttpRequestLike | undefined): Promise<string | undefined> {
    if (!request) return Promise.resolve(undefined);
    const key = request.raw ?? request;
    let identity = this.identities.get(key);
    if (!identity) {
      identity = this.inScope(request, () => this.identify(request));
      this.identities.set(key, identity);
    }
    return identity;
  }

  private async identify(request: HttpRequestLike): Promise<string | undefined> {
    const { options, logger, auth } = this.settings;
    const verified = auth?.verifiedAuth(request);
    if (auth && verified) return principalIdentity(auth.principalOf(verified));
    const { surface } = this.prepare();
    let context: Promise<ToolContext> | undefined;
    const resolve = async () => this.catalogInvoker().context(await surface.context());
    try {
      const identity = await options.identify(request, () => (context ??= resolve()));
      return typeof identity === 'string' ? identity : undefined;
    } catch (error) {
      logger.debug?.(`MCP caller not identified: ${(error as Error)?.message ?? String(error)}`);
      return undefined;
    }
  }
}
