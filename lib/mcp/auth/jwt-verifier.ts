import {
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';

/** Algorithms a JWT access token may be signed with by default: asymmetric ones only. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/** How the built-in verifier checks JWT access tokens. */
export interface JwtVerification {
  /** Allowed signing algorithms; `none` and HMAC (`HS*`) are refused at bootstrap. Default: the RSA, RSA-PSS, EC and EdDSA ones. */
  algorithms?: readonly string[];
  /** Leeway for `exp` and `nbf`, in seconds. @default 10 */
  clockToleranceSeconds?: number;
  /** The issuer's key set, when its metadata does not name it (`jwks_uri`) or cannot be fetched. */
  jwksUri?: string;
  /** After keys were fetched, how long an unknown `kid` waits before the key set is fetched again. @default 30000 */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before the key set is fetched again. @default 600000 */
  jwksMaxAgeMs?: number;
  /** Timeout of a metadata or key set request. @default 5000 */
  fetchTimeoutMs?: number;
}

/** The resolved settings of {@link JwtAccessTokenVerifier}. */
export interface JwtVerifierSettings {
  readonly issuers: readonly string[];
  readonly algorithms: readonly string[];
  readonly clockToleranceSeconds: number;
  readonly jwksUri?: string;
  readonly jwksCooldownMs: number;
  readonly jwksMaxAgeMs: number;
  readonly fetchTimeoutMs: number;
}

const invalid = (message: string) => new OAuthError(OAuthErrorCode.InvalidToken, message);

/**
 * Verifies JWT access tokens of the configured issuers with `jose`: the signature with the
 * issuer's published keys (fetched from its metadata's `jwks_uri`, cached, fetched again for an
 * unknown `kid` at most once per cooldown, and kept in use while the key set cannot be fetched),
 * an allowed algorithm, `iss`, `exp` and `nbf` within the clock tolerance. The audience is
 * reported as `AuthInfo.resource` for the caller to compare (RFC 8707): `verify(token, resource)`
 * reports `resource` when the token's `aud` names it. Every refusal is an `invalid_token`
 * `OAuthError` whose message says nothing of the token.
 */
export class JwtAccessTokenVerifier {
  private readonly keys = new Map<string, IssuerKeys>();

  constructor(private readonly settings: JwtVerifierSettings) {
    for (const issuer of settings.issuers) this.keys.set(issuer, new IssuerKeys(issuer, settings));
  }

  /** The SDK's verifier interface for one expected resource. */
  forResource(resource: URL): OAuthTokenVerifier {
    return { verifyAccessToken: (token) => this.verify(token, resource) };
  }

  async verify(token: string, resource: URL): Promise<AuthInfo> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw invalid('The access token is not a JWT.');
    }
    const issuer = typeof unverified.iss === 'string' ? unverified.iss : undefined;
    const keys = issuer === undefined ? undefined : this.keys.get(issuer);
    if (!keys) throw invalid('The access token was not issued by a trusted authorization server.');
    const { algorithms, clockToleranceSeconds } = this.settings;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys.resolve, {
        issuer,
        algorithms: [...algorithms],
        clockTolerance: clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw invalid(refusalMessage(error));
    }
    return authInfo(token, payload, resource);
  }
}

function refusalMessage(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf') {
    return 'The access token is not valid yet.';
  }
  return 'The access token is invalid.';
}

/** The verified token as the SDK sees it; `resource` is the expected one when `aud` names it. */
function authInfo(token: string, payload: JWTPayload, expected: URL): AuthInfo {
  const audiences = payload.aud === undefined ? [] : [payload.aud].flat();
  const named = audiences.find((audience) => sameResource(audience, expected));
  const resource = named ?? audiences[0];
  const scope = payload.scope ?? payload.scp;
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter(Boolean)
      : Array.isArray(scope)
        ? scope.filter((s): s is string => typeof s === 'string')
        : [];
  const clientId = [payload.client_id, payload.azp, payload.sub].find(
    (value): value is string => typeof value === 'string',
  );
  return {
    token,
    clientId: clientId ?? '',
    scopes,
    expiresAt: payload.exp,
    ...(resource !== undefined && URL.canParse(resource) && { resource: new URL(resource) }),
    extra: { claims: payload, ...(typeof payload.sub === 'string' && { subject: payload.sub }) },
  };
}

/**
 * Two resource identifiers compared as the SDK's `verifyBearerToken` then compares
 * `AuthInfo.resource` with the expected resource: equal but for a fragment and one trailing slash.
 * Not the SDK's `checkResourceAllowed`, a client's check of a server's metadata: it matches by
 * path prefix on the same origin and ignores the query, so it would take a token issued for
 * `https://api.example.com/mcp/admin` (or, arguments swapped, for `https://api.example.com/`) as
 * one for `https://api.example.com/mcp`; and it throws on an audience that is not a URL.
 */
function sameResource(candidate: string, expected: URL): boolean {
  if (!URL.canParse(candidate)) return false;
  return comparable(new URL(candidate)) === comparable(expected);
}

function comparable(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href.endsWith('/') ? copy.href.slice(0, -1) : copy.href;
}

/**
 * The keys of one issuer. The key set's URL comes from the issuer's metadata (RFC 8414, then
 * OpenID discovery) unless configured. When the key set cannot be fetched, the keys fetched
 * before stay in use, and no fetch is tried again before the cooldown.
 */
class IssuerKeys {
  private remote?: Promise<ReturnType<typeof createRemoteJWKSet>>;
  private retryAt = 0;
  private fallback?: { jwks: object; resolve: JWTVerifyGetKey };

  constructor(
    private readonly issuer: string,
    private readonly settings: JwtVerifierSettings,
  ) {}

  readonly resolve: JWTVerifyGetKey = async (header, token) => {
    const remote = await this.keySet();
    const cached = remote.jwks();
    if (cached && !remote.fresh && Date.now() < this.retryAt) {
      return this.local(cached)(header, token);
    }
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      ) {
        throw error;
      }
      this.retryAt = Date.now() + this.settings.jwksCooldownMs;
      if (cached) return this.local(cached)(header, token);
      throw error;
    }
  };

  private local(jwks: NonNullable<ReturnType<ReturnType<typeof createRemoteJWKSet>['jwks']>>) {
    if (this.fallback?.jwks !== jwks) this.fallback = { jwks, resolve: createLocalJWKSet(jwks) };
    return this.fallback.resolve;
  }

  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.remote) return this.remote;
    if (Date.now() < this.retryAt) {
      return Promise.reject(invalid('The authorization server cannot be reached.'));
    }
    const { jwksCooldownMs, jwksMaxAgeMs, fetchTimeoutMs } = this.settings;
    const pending = this.jwksUri().then((uri) =>
      createRemoteJWKSet(new URL(uri), {
        cooldownDuration: jwksCooldownMs,
        cacheMaxAge: jwksMaxAgeMs,
        timeoutDuration: fetchTimeoutMs,
      }),
    );
    this.remote = pending;
    pending.catch(() => {
      // Discovery failed: try again after the cooldown, not on every request.
      this.remote = undefined;
      this.retryAt = Date.now() + jwksCooldownMs;
    });
    return pending;
  }

  private async jwksUri(): Promise<string> {
    if (this.settings.jwksUri) return this.settings.jwksUri;
    for (const url of metadataUrls(this.issuer)) {
      const metadata = await fetchJson(url, this.settings.fetchTimeoutMs);
      const uri = (metadata as { jwks_uri?: unknown } | undefined)?.jwks_uri;
      if (typeof uri === 'string' && URL.canParse(uri)) return uri;
    }
    throw invalid('The authorization server publishes no keys.');
  }
}

/** Where an issuer's metadata is: RFC 8414 (path inserted), then OpenID Connect discovery. */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) return undefined;
    return await response.json();
  } catch {
    return undefined;
  }
}
