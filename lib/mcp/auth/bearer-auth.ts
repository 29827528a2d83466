import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  oauthMetadataResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { BoundedMap } from '../../core/bounded-map.js';
import { ToolsConfigurationError } from '../../core/errors.js';
import { isThenable } from '../../core/maybe-async.js';
import { isScopeToken, type ToolPrincipal } from '../../core/principal.js';
import { requestUrl, webHeaders, type HttpRequestLike } from '../http-framing.js';
import { MCP_MESSAGES } from '../mcp.messages.js';
import {
  DEFAULT_JWT_ALGORITHMS,
  JwtAccessTokenVerifier,
  type JwtVerification,
} from './jwt-verifier.js';

/**
 * How the MCP endpoint signs callers in, as an OAuth 2.1 resource server (the MCP authorization
 * specification): it serves protected resource metadata (RFC 9728) naming the authorization
 * servers, answers a request without a valid bearer token with a `401` challenge, verifies
 * audience-bound tokens (RFC 8707), and challenges a call whose token lacks a tool's scopes to
 * step up (`403 insufficient_scope`).
 *
 * @example
 * ToolsModule.forRoot({
 *   registry,
 *   mcp: {
 *     auth: {
 *       issuers: 'https://auth.example.com/realms/billing',
 *       resource: 'https://api.example.com/mcp',
 *       scopesSupported: ['billing:read', 'billing:write'],
 *     },
 *   },
 * });
 */
export interface McpAuthOptions {
  /** The authorization server(s) whose tokens are accepted: their issuer identifiers. */
  issuers: string | readonly string[];
  /**
   * The canonical URL of the endpoint, as clients reach it (`https://api.example.com/mcp`):
   * tokens must be issued for it (their audience), and the metadata names it.
   */
  resource?: string;
  /**
   * Derive the resource URL from each request's `Host` header instead of `resource`. Only
   * behind a proxy that sets `Host` itself: otherwise a client chooses which audience its token
   * is checked against. @default false
   */
  resourceFromRequest?: boolean;
  /** The scopes this endpoint understands, advertised in the metadata. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs, whatever it calls. */
  requiredScopes?: readonly string[];
  /**
   * Verify tokens yourself (opaque tokens, introspection): return the SDK's `AuthInfo`, with
   * `resource` set from the token's audience and `expiresAt`, or throw the SDK's `OAuthError`
   * (`invalid_token`). Without it, tokens are verified as JWTs (see `jwt`).
   */
  verifyAccessToken?: (token: string) => Promise<AuthInfo>;
  /** How the built-in JWT verifier checks tokens. */
  jwt?: JwtVerification;
  /** `resource_name` in the metadata. */
  resourceName?: string;
  /** `resource_documentation` in the metadata. */
  resourceDocumentation?: string;
  /** A bearer token longer than this is refused unread. @default 8192 */
  maxTokenBytes?: number;
  /**
   * Verified tokens are remembered, so a client's next requests skip the signature check: at most
   * `maxEntries` (the oldest go first), each until its `exp` or for `maxAgeMs`, whichever comes
   * first. `false` verifies every request. @default { maxEntries: 1024, maxAgeMs: 30000 }
   */
  tokenCache?: { maxEntries?: number; maxAgeMs?: number } | false;
}

/** Why a request was refused, and the HTTP answer that says so. */
type Refusal = Response;

/**
 * Signs requests in: verifies the bearer token of a request to the MCP route and answers the
 * refusals, serves the protected resource metadata, and builds the step-up challenge. The
 * verified `AuthInfo` is kept for the request (see {@link verifiedAuth}) and set as
 * `request.auth`, as the SDK's own middleware does.
 */
export class McpBearerAuth {
  private readonly issuers: readonly string[];
  private readonly resource?: URL;
  private readonly verifier: (resource: URL) => OAuthTokenVerifier;
  private readonly challengeScopes: string[];
  private readonly requiredScopes: string[];
  private readonly maxTokenBytes: number;
  private readonly verified?: VerifiedTokens;
  /** The `AuthInfo` verified for each request, by its Node request. */
  private readonly signedIn = new WeakMap<object, AuthInfo>();
  /** The principal of each verified `AuthInfo`: a remembered token's serves many requests. */
  private readonly principals = new WeakMap<AuthInfo, ToolPrincipal>();

  constructor(private readonly options: McpAuthOptions) {
    const issuers = [options.issuers].flat();
    if (issuers.length === 0) throw new ToolsConfigurationError(MCP_MESSAGES.noIssuer());
    for (const issuer of issuers) {
      if (!URL.canParse(issuer))
        throw new ToolsConfigurationError(MCP_MESSAGES.issuerNotUrl(issuer));
      // The SDK refuses an issuer that is not HTTPS (outside loopback), or has a query or fragment.
      try {
        buildOAuthProtectedResourceMetadata({
          oauthMetadata: { issuer } as OAuthMetadata,
          resourceServerUrl: new URL('https://resource.invalid/'),
        });
      } catch (error) {
        throw new ToolsConfigurationError(
          MCP_MESSAGES.issuerRefused(issuer, (error as Error).message),
        );
      }
    }
    this.issuers = Object.freeze(issuers);
    if ((options.resource === undefined) === (options.resourceFromRequest !== true)) {
      throw new ToolsConfigurationError(MCP_MESSAGES.resourceChoice());
    }
    if (options.resource !== undefined) {
      if (!URL.canParse(options.resource) || new URL(options.resource).hash) {
        throw new ToolsConfigurationError(MCP_MESSAGES.resourceNotUrl(options.resource));
      }
      this.resource = new URL(options.resource);
    }
    for (const scope of [...(options.scopesSupported ?? []), ...(options.requiredScopes ?? [])]) {
      if (!isScopeToken(scope)) throw new ToolsConfigurationError(MCP_MESSAGES.notAScope(scope));
    }
    this.requiredScopes = [...(options.requiredScopes ?? [])];
    this.challengeScopes =
      this.requiredScopes.length > 0 ? this.requiredScopes : [...(options.scopesSupported ?? [])];
    this.maxTokenBytes = options.maxTokenBytes ?? 8192;
    if (options.tokenCache !== false) {
      const { maxEntries = 1024, maxAgeMs = 30_000 } = options.tokenCache ?? {};
      this.verified = new VerifiedTokens(maxEntries, maxAgeMs);
    }
    this.verifier = options.verifyAccessToken
      ? () => ({ verifyAccessToken: options.verifyAccessToken! })
      : jwtVerifier(issuers, options.jwt ?? {});
  }

  /** The resource a request is made to: the configured one, or the request's own URL. */
  resourceOf(request: HttpRequestLike): URL {
    if (this.resource) return this.resource;
    const headers = webHeaders(request.headers);
    const url = new URL(requestUrl(headers.get('host'), request.originalUrl ?? request.url ?? '/'));
    // The proxy that sets Host also says which scheme the client used.
    const proto = headers.get('x-forwarded-proto')?.split(',')[0].trim();
    if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
    url.search = '';
    url.hash = '';
    return url;
  }

  /** Where the protected resource metadata of a request's resource is served (RFC 9728, path-aware). */
  metadataUrl(request: HttpRequestLike): string {
    return getOAuthProtectedResourceMetadataUrl(this.resourceOf(request));
  }

  /**
   * The path the metadata document is served at: the configured resource's, or, with
   * `resourceFromRequest`, every path under `/.well-known/oauth-protected-resource`.
   */
  get metadataPath(): string {
    return this.resource
      ? new URL(getOAuthProtectedResourceMetadataUrl(this.resource)).pathname
      : WELL_KNOWN;
  }

  /** Whether the resource comes from each request (`resourceFromRequest`): one metadata path per resource path. */
  get derivesResource(): boolean {
    return this.resource === undefined;
  }

  /** Whether a request URL (path and query) is the metadata document's. */
  servesMetadata(url: string): boolean {
    const path = url.split('?')[0].replace(/(.)\/$/, '$1');
    return this.resource ? path === this.metadataPath : path.startsWith(WELL_KNOWN);
  }

  /**
   * Verifies the request's bearer token: its `AuthInfo`, or the answer refusing it (`401` with
   * the challenge; `403` when it lacks the required scopes; `400` for a token in the query
   * string). Answered at once for a token verified before (see `tokenCache`) and for a refusal
   * that needs no verification; otherwise a promise. Never throws or rejects: whatever goes
   * wrong is a refusal.
   */
  authenticate(request: HttpRequestLike): AuthInfo | Refusal | Promise<AuthInfo | Refusal> {
    const resource = this.resourceOf(request);
    const url = request.originalUrl ?? request.url ?? '';
    if (/[?&]access_token=/.test(url)) {
      return bearerAuthChallengeResponse(
        new OAuthError(
          OAuthErrorCode.InvalidRequest,
          'Access tokens are not accepted in the query string.',
        ),
      );
    }
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      return this.unauthenticated(getOAuthProtectedResourceMetadataUrl(resource));
    }
    if (header.length > this.maxTokenBytes + 7) {
      return this.refuse(
        new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is too large.'),
        getOAuthProtectedResourceMetadataUrl(resource),
      );
    }
    // Keyed by the resource too when it comes from the request: a token is checked per audience.
    const key = this.resource ? header : `${resource.href} ${header}`;
    const known = this.verified?.get(key);
    if (known) {
      this.remember(request, known);
      return known;
    }
    return this.verify(request, header, key, resource);
  }

  /**
   * Calls `signedIn` with what {@link authenticate} answers: at once when the answer is at hand
   * (a token verified before, a refusal), otherwise once the verification settles.
   */
  authenticateThen(
    request: HttpRequestLike,
    signedIn: (verified: AuthInfo | Refusal) => void,
  ): void {
    const verified = this.authenticate(request);
    if (isThenable(verified)) void verified.then(signedIn);
    else signedIn(verified);
  }

  private async verify(
    request: HttpRequestLike,
    header: string,
    key: string,
    resource: URL,
  ): Promise<AuthInfo | Refusal> {
    const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
    // The SDK's checks, without its `requireBearerAuth` gate: that takes a web `Request` and
    // always answers with a promise (this runs on Node's request, before any body parser, and
    // answers a remembered token at once), is built for one resource (not one per request), puts
    // `error="invalid_token"` in the challenge to a request without a token (RFC 6750 §3.1: none)
    // with only the required scopes, and answers `500` to anything else a verifier throws.
    try {
      const auth = await verifyBearerToken(header, {
        verifier: this.verifier(resource),
        requiredScopes: this.requiredScopes,
        resourceMetadataUrl,
        expectedResource: resource,
      });
      this.remember(request, auth);
      this.verified?.set(key, auth);
      return auth;
    } catch (error) {
      return this.refuse(
        error instanceof OAuthError
          ? error
          : new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is invalid.'),
        resourceMetadataUrl,
      );
    }
  }

  /**
   * The `403` answer to a request whose token lacks `scopes`: the SDK's `insufficient_scope`
   * challenge (the scopes to ask for: the token's own and the missing ones), with a JSON-RPC
   * error body saying the same.
   */
  insufficientScope(
    auth: AuthInfo,
    scopes: readonly string[],
    id: unknown,
    request: HttpRequestLike,
  ): Response {
    const wanted = [...new Set([...auth.scopes, ...this.requiredScopes, ...scopes])];
    const challenge = bearerAuthChallengeResponse(
      new OAuthError(
        OAuthErrorCode.InsufficientScope,
        `This call needs the scopes ${scopes.join(' ')}.`,
      ),
      {
        requiredScopes: wanted,
        resourceMetadataUrl: auth.resourceMetadataUrl ?? this.metadataUrl(request),
      },
    );
    const body = {
      jsonrpc: '2.0',
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
      error: {
        code: INSUFFICIENT_SCOPE,
        message: `Insufficient scope: this call needs the scopes ${scopes.join(' ')}.`,
        data: { error: 'insufficient_scope', requiredScopes: [...scopes] },
      },
    };
    return Response.json(body, {
      status: 403,
      headers: { 'www-authenticate': challenge.headers.get('www-authenticate')! },
    });
  }

  /**
   * The answer on the metadata URL (`GET` the document, `OPTIONS` the CORS preflight, other
   * methods `405`), readable from browsers.
   */
  async metadataResponse(request: Request): Promise<Response> {
    const resource = this.resource ?? resourceFromMetadataUrl(request);
    const options = {
      oauthMetadata: { issuer: this.issuers[0] } as OAuthMetadata,
      resourceServerUrl: resource,
      ...(this.options.scopesSupported && { scopesSupported: [...this.options.scopesSupported] }),
      ...(this.options.resourceName !== undefined && { resourceName: this.options.resourceName }),
      ...(this.options.resourceDocumentation !== undefined && {
        serviceDocumentationUrl: new URL(this.options.resourceDocumentation),
      }),
    };
    const answer = oauthMetadataResponse(request, options);
    if (!answer) return new Response(null, { status: 404 });
    if (request.method !== 'GET' || this.issuers.length === 1) return answer;
    // The SDK's document names one authorization server; this endpoint trusts several.
    const document: OAuthProtectedResourceMetadata = {
      ...((await answer.json()) as OAuthProtectedResourceMetadata),
      authorization_servers: [...this.issuers],
    };
    return Response.json(document, { headers: answer.headers });
  }

  /** The `AuthInfo` this sign-in verified for a request, if it did. */
  verifiedAuth(request: HttpRequestLike | undefined): AuthInfo | undefined {
    return request && this.signedIn.get(request.raw ?? request);
  }

  /** The principal a verified token gives the calls of its request (no token in it). */
  principalOf(auth: AuthInfo): ToolPrincipal {
    let principal = this.principals.get(auth);
    if (!principal) this.principals.set(auth, (principal = toPrincipal(auth)));
    return principal;
  }

  /** Keeps a request's verified `AuthInfo`, and sets it as `request.auth` as the SDK does. */
  private remember(request: HttpRequestLike, auth: AuthInfo): void {
    this.signedIn.set(request.raw ?? request, auth);
    (request as { auth?: AuthInfo }).auth = auth;
    if (request.raw) (request.raw as { auth?: AuthInfo }).auth = auth;
  }

  private unauthenticated(resourceMetadataUrl: string): Response {
    // RFC 6750 §3.1: a request without credentials gets the challenge without an error code.
    const challenge = bearerAuthChallengeResponse(
      new OAuthError(OAuthErrorCode.InvalidToken, 'Missing Authorization header'),
      { requiredScopes: this.challengeScopes, resourceMetadataUrl },
    );
    const header = challenge.headers
      .get('www-authenticate')!
      .replace(/^Bearer error="[^"]*", error_description="[^"]*"(, )?/, 'Bearer ');
    return new Response(challenge.body, {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': header },
    });
  }

  private refuse(error: OAuthError, resourceMetadataUrl: string): Response {
    return bearerAuthChallengeResponse(error, {
      requiredScopes: this.challengeScopes,
      resourceMetadataUrl,
    });
  }
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Tokens verified lately, by `Authorization` header: bounded (the oldest entry goes first), and
 * never used past the token's `exp`, nor longer than `maxAgeMs` (a key the issuer withdrew stops
 * working that soon).
 */
class VerifiedTokens {
  private readonly entries: BoundedMap<string, { auth: AuthInfo; until: number }>;

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  get(key: string): AuthInfo | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() < entry.until) return entry.auth;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, auth: AuthInfo): void {
    if (this.maxEntries <= 0 || auth.expiresAt === undefined) return;
    const until = Math.min(auth.expiresAt * 1000, Date.now() + this.maxAgeMs);
    if (until <= Date.now()) return;
    this.entries.set(key, { auth, until });
  }
}

/** The JSON-RPC error code of an `insufficient_scope` refusal (implementation-defined range). */
export const INSUFFICIENT_SCOPE = -32003;

function jwtVerifier(issuers: readonly string[], jwt: JwtVerification) {
  const algorithms = jwt.algorithms ?? DEFAULT_JWT_ALGORITHMS;
  const refused = algorithms.filter((alg) => alg === 'none' || /^HS/i.test(alg));
  if (refused.length > 0) {
    throw new ToolsConfigurationError(MCP_MESSAGES.symmetricAlgorithms(refused));
  }
  const verifier = new JwtAccessTokenVerifier({
    issuers,
    algorithms,
    clockToleranceSeconds: jwt.clockToleranceSeconds ?? 10,
    ...(jwt.jwksUri !== undefined && { jwksUri: jwt.jwksUri }),
    jwksCooldownMs: jwt.jwksCooldownMs ?? 30_000,
    jwksMaxAgeMs: jwt.jwksMaxAgeMs ?? 600_000,
    fetchTimeoutMs: jwt.fetchTimeoutMs ?? 5_000,
  });
  return (resource: URL) => verifier.forResource(resource);
}

/**
 * The resource a path-aware metadata URL describes, with the scheme the client used (as
 * `resourceOf` takes it from the proxy's `X-Forwarded-Proto`).
 */
function resourceFromMetadataUrl(request: Request): URL {
  const url = new URL(request.url);
  const resource = new URL(url.origin);
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0].trim();
  if (proto === 'https' || proto === 'http') resource.protocol = `${proto}:`;
  resource.pathname = url.pathname.replace(/^\/\.well-known\/oauth-protected-resource/, '') || '/';
  return resource;
}

function toPrincipal(auth: AuthInfo): ToolPrincipal {
  const extra = auth.extra ?? {};
  const claims = (extra.claims ?? extra) as Record<string, unknown>;
  const subject =
    typeof extra.subject === 'string'
      ? extra.subject
      : typeof claims.sub === 'string'
        ? claims.sub
        : undefined;
  const issuer = typeof claims.iss === 'string' ? claims.iss : undefined;
  return Object.freeze({
    ...(issuer !== undefined && { issuer }),
    clientId: auth.clientId,
    scopes: Object.freeze([...auth.scopes]),
    ...(subject !== undefined && { subject }),
    ...(auth.expiresAt !== undefined && { expiresAt: auth.expiresAt }),
    claims: Object.freeze({ ...claims }),
  });
}
