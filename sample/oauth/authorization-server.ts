/**
 * A real OAuth 2.1 authorization server, in-process on 127.0.0.1, for the sample and the tests:
 * oidc-provider behind a `node:http` server, issuing RS256-signed JWT access tokens (RFC 9068)
 * whose `aud` is the resource indicator (RFC 8707) the client asked for.
 *
 * - Client credentials for the seeded confidential clients (`client_secret_basic` or `_post`).
 * - Authorization code with PKCE S256 (always required) for users, through the minimal sign-in
 *   and consent pages served at `/interaction/:uid`, which check the seeded users' passwords.
 * - Open dynamic client registration (RFC 7591), public clients (`token_endpoint_auth_method`
 *   `none`) and http redirect URIs on loopback included, so MCP clients can register themselves.
 * - Discovery at `/.well-known/oauth-authorization-server` (RFC 8414) and
 *   `/.well-known/openid-configuration`; keys at `/jwks`.
 * - Test controls: `rotateKeys()`, `setJwksAvailable()`, `jwksRequests` and `signingKey()`.
 *
 * A development tool: everything is kept in memory, CORS is open to any origin and the pages are
 * bare. It imports oidc-provider, jose and node builtins only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

export interface AuthorizationServerOptions {
  /** The interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The port; default 0 (a free port). */
  port?: number;
  /**
   * The resource indicators tokens may be issued for (the MCP endpoint URLs, such as
   * `http://127.0.0.1:3000/mcp`). A token's `aud` is its resource, spelled as here. A request
   * naming no resource gets the first one; a request naming another one is refused
   * (`invalid_target`).
   */
  resources: readonly string[];
  /** The scopes every resource offers, such as `['tickets:read', 'tickets:write']`. */
  scopes: readonly string[];
  /**
   * Confidential clients allowed the client credentials grant (`client_secret_basic` or
   * `client_secret_post`); `scopes` limits what each may ask for (default: every scope).
   */
  clients?: readonly { clientId: string; clientSecret: string; scopes?: readonly string[] }[];
  /** Accounts for the browser flow (authorization code + PKCE): the `sub` of their tokens. */
  users?: readonly { id: string; password: string }[];
  /** Lifetime of access tokens; default 300. */
  accessTokenTtlSeconds?: number;
}

/** A token endpoint response. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  scope?: string;
  token_type: string;
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly issuer: string;
  /** `${issuer}/jwks`. */
  readonly jwksUri: string;
  readonly port: number;
  /**
   * A client credentials access token (a JWT) for `resource` with `scope`, straight from the
   * token endpoint (`client_secret_basic`). Without `scope` the token carries no `scope` claim.
   * Rejects with a {@link TokenRequestError} when the server refuses (`invalid_client`,
   * `invalid_scope`, `invalid_target`, ...).
   */
  clientCredentialsToken(
    client: { clientId: string; clientSecret: string },
    options: { resource: string; scope?: string },
  ): Promise<TokenResponse>;
  /**
   * Replaces the signing key: new tokens are signed with a new key (new `kid`); the JWKS then
   * serves the new and the previous public keys. Issuer, port, clients (registered ones too),
   * sessions and grants all stay.
   */
  rotateKeys(): Promise<void>;
  /** Makes the jwks_uri answer 503 (`false`) or serve the keys again (`true`). */
  setJwksAvailable(available: boolean): void;
  /** How many times the jwks_uri was requested (served or not). */
  readonly jwksRequests: number;
  /**
   * The current signing private key as a JWK (with `kid` and `alg`), for tests that forge
   * validly-signed tokens with bad claims.
   */
  signingKey(): Promise<JWK>;
  /** Stops listening and drops every connection, keep-alive ones included. */
  close(): Promise<void>;
}

/** The token endpoint refused a request. */
export class TokenRequestError extends Error {
  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The OAuth `error` code, such as `invalid_scope`. */
    readonly error: string,
    readonly errorDescription?: string,
  ) {
    super(
      `token request refused (${status}): ${error}${errorDescription ? ` - ${errorDescription}` : ''}`,
    );
    this.name = 'TokenRequestError';
  }
}

const JWKS_PATH = '/jwks';
const TOKEN_PATH = '/token';
const INTERACTION_PATH = '/interaction/';
const SIGNING_ALG = 'RS256';

export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  validate(options);
  const { Provider, errors } = await loadOidcProvider();
  const host = options.host ?? '127.0.0.1';
  const ttl = options.accessTokenTtlSeconds ?? 300;
  const scopes = [...options.scopes];
  const resources = new Map(options.resources.map((resource) => [normalize(resource), resource]));
  const [defaultResource] = options.resources;
  const users = new Map((options.users ?? []).map((user) => [user.id, user.password]));
  const clients = (options.clients ?? []).map((client) => ({
    client_id: client.clientId,
    client_secret: client.clientSecret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: (client.scopes ?? scopes).join(' '),
  }));
  // What outlives a provider: its data, the cookie keys and the signing keys.
  const adapter = sharedAdapter();
  const cookieKeys = [randomBytes(32).toString('base64url')];
  let keys: JWK[] = [await newSigningKey()];

  let provider: OidcProvider | undefined;
  let handler: NodeHandler | undefined;
  let jwksAvailable = true;
  let jwksRequests = 0;
  let lastError: unknown;

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      lastError = error;
      if (res.headersSent) res.destroy();
      else send(res, 500, 'text/plain; charset=utf-8', 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const jwksUri = `${issuer}${JWKS_PATH}`;

  /** A provider signing with `keys[0]` and publishing every key of `keys`. */
  function makeProvider(keySet: JWK[]): OidcProvider {
    const signingKid = keySet[0].kid;
    const created = new Provider(issuer, {
      adapter,
      clients,
      jwks: { keys: keySet },
      cookies: { keys: cookieKeys },
      scopes: ['openid', 'offline_access', ...scopes],
      responseTypes: ['code'],
      routes: { jwks: JWKS_PATH, token: TOKEN_PATH },
      pkce: { required: () => true },
      clientBasedCORS: () => true,
      issueRefreshToken: async (_ctx: unknown, client: OidcClient) =>
        client.grantTypeAllowed('refresh_token'),
      findAccount: async (_ctx: unknown, sub: string) =>
        users.has(sub) ? { accountId: sub, claims: async () => ({ sub }) } : undefined,
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) =>
          `${INTERACTION_PATH}${interaction.uid}`,
      },
      renderError: async (ctx: KoaContext, out: Record<string, string>) => {
        ctx.type = 'html';
        ctx.body = page(
          'Sign-in failed',
          `<p role="alert">${escape(out.error)}: ${escape(out.error_description ?? '')}</p>`,
        );
      },
      ttl: {
        AccessToken: (_ctx: unknown, token: OidcToken) =>
          token.resourceServer?.accessTokenTTL ?? ttl,
        ClientCredentials: (_ctx: unknown, token: OidcToken) =>
          token.resourceServer?.accessTokenTTL ?? ttl,
        AuthorizationCode: 60,
        IdToken: 3600,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        RefreshToken: 86_400,
      },
      features: {
        devInteractions: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        clientCredentials: { enabled: true },
        registration: { enabled: true, initialAccessToken: false },
        resourceIndicators: {
          enabled: true,
          // No resource named: the first configured one. At the token endpoint, after a grant
          // for several, `oneOf` comes back as it is and the client has to name one.
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) =>
            oneOf ?? defaultResource,
          // Token and refresh requests without `resource` get the one the grant was for.
          useGrantedResource: async () => true,
          getResourceServerInfo: async (ctx: KoaContext, indicator: string, client: OidcClient) => {
            const audience = resources.get(normalize(indicator));
            if (audience === undefined) {
              throw new errors.InvalidTarget(`resource ${indicator} is not served here`);
            }
            if (ctx.oidc.route === 'token' && ctx.oidc.params.grant_type === 'client_credentials') {
              // oidc-provider would silently drop a scope the client may not have; refuse it.
              const allowed = new Set(client.scope?.split(' ') ?? scopes);
              const requested = String(ctx.oidc.params.scope ?? '')
                .split(' ')
                .filter(Boolean);
              const refused = requested.find(
                (scope) => !allowed.has(scope) || !scopes.includes(scope),
              );
              if (refused !== undefined) {
                throw new errors.InvalidScope('requested scope is not allowed', refused);
              }
            }
            return {
              scope: scopes.join(' '),
              audience,
              accessTokenTTL: ttl,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: SIGNING_ALG, kid: signingKid } },
            };
          },
        },
      },
    });
    // Koa prints errors that reach it unless someone listens; oidc-provider reports its own.
    created.on('error', (error: unknown) => void (lastError = error));
    created.on('server_error', (_ctx: unknown, error: unknown) => void (lastError = error));
    return created;
  }

  function install(keySet: JWK[]): void {
    provider = makeProvider(keySet);
    handler = provider.callback();
    keys = keySet;
  }
  try {
    install(keys);
  } catch (error) {
    // A bad configuration (a client scope not in `scopes`, say): do not leave the port open.
    server.close();
    throw error;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    const interaction = url.pathname.startsWith(INTERACTION_PATH);
    // Open CORS for the browser-based clients (the MCP Inspector): discovery, registration,
    // token and keys. A preflight is answered here; oidc-provider leaves these headers alone.
    const origin = req.headers.origin;
    if (origin !== undefined && !interaction) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        const requested = req.headers['access-control-request-headers'];
        if (requested !== undefined) res.setHeader('Access-Control-Allow-Headers', requested);
        res.setHeader('Access-Control-Max-Age', '600');
        res.writeHead(204).end();
        return;
      }
    }
    if (url.pathname === JWKS_PATH) {
      jwksRequests += 1;
      if (!jwksAvailable) {
        const body = JSON.stringify({ error: 'temporarily_unavailable' });
        send(res, 503, 'application/json', body);
        return;
      }
    }
    if (interaction) {
      await interactionRoute(provider!, req, res, url);
      return;
    }
    await handler!(req, res);
  }

  /** The sign-in and consent pages: GET shows the current prompt, POST answers it. */
  async function interactionRoute(
    current: OidcProvider,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<void> {
    const match = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/.exec(url.pathname);
    if (match === null) {
      send(
        res,
        404,
        'text/html; charset=utf-8',
        page('Not found', '<p role="alert">Not found.</p>'),
      );
      return;
    }
    const [, uid, action] = match;
    const details = await current.interactionDetails(req, res).catch(() => undefined);
    if (details === undefined || details.uid !== uid) {
      const body = page(
        'Sign-in expired',
        '<p role="alert">This sign-in request is unknown or has expired; start again from the application.</p>',
      );
      send(res, 400, 'text/html; charset=utf-8', body);
      return;
    }
    const prompt = details.prompt.name;
    if (action === undefined) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
        return;
      }
      const client = await clientName(current, details);
      const html = prompt === 'login' ? loginPage(details, client) : consentPage(details, client);
      send(res, 200, 'text/html; charset=utf-8', html);
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed');
      return;
    }
    const form = await readForm(req);
    if (action === 'abort') {
      const result = { error: 'access_denied', error_description: 'End-User aborted interaction' };
      await current.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
      return;
    }
    if (action === 'login' && prompt === 'login') {
      const login = form.get('login') ?? '';
      const password = form.get('password') ?? '';
      const expected = users.get(login);
      if (expected === undefined || !samePassword(password, expected)) {
        send(
          res,
          200,
          'text/html; charset=utf-8',
          loginPage(details, await clientName(current, details), login, 'Wrong user or password.'),
        );
        return;
      }
      const result = { login: { accountId: login } };
      await current.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
      return;
    }
    if (action === 'confirm' && prompt === 'consent') {
      const accountId = details.session?.accountId;
      const clientId = String(details.params.client_id);
      const grant =
        (details.grantId !== undefined ? await current.Grant.find(details.grantId) : undefined) ??
        new current.Grant({ accountId: accountId!, clientId });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, granted] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, granted.join(' '));
      }
      const grantId = await grant.save();
      const result = { consent: { grantId } };
      await current.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
      return;
    }
    // A stale form (the prompt moved on): show the current one.
    res.writeHead(303, { location: `${INTERACTION_PATH}${uid}`, 'content-length': '0' }).end();
  }

  function samePassword(given: string, expected: string): boolean {
    const digest = (value: string) => createHash('sha256').update(value).digest();
    return timingSafeEqual(digest(given), digest(expected));
  }

  let rotation: Promise<void> = Promise.resolve();
  let closed: Promise<void> | undefined;

  return {
    issuer,
    jwksUri,
    port,
    get jwksRequests() {
      return jwksRequests;
    },
    async clientCredentialsToken(client, { resource, scope }) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
      if (scope !== undefined) body.set('scope', scope);
      const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
      const response = await fetch(`${issuer}${TOKEN_PATH}`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body,
      });
      const answer = (await response.json()) as Partial<TokenResponse> & {
        error?: string;
        error_description?: string;
      };
      if (!response.ok || typeof answer.access_token !== 'string') {
        const detail =
          answer.error === 'server_error' && lastError instanceof Error
            ? ` (${lastError.message})`
            : '';
        throw new TokenRequestError(
          response.status,
          answer.error ?? 'unknown_error',
          `${answer.error_description ?? ''}${detail}` || undefined,
        );
      }
      return answer as TokenResponse;
    },
    rotateKeys() {
      rotation = rotation
        .catch(() => undefined)
        .then(async () => install([await newSigningKey(), keys[0]]));
      return rotation;
    },
    setJwksAvailable(available) {
      jwksAvailable = available;
    },
    async signingKey() {
      await rotation;
      return structuredClone(keys[0]);
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Refuses up front what oidc-provider would only refuse at the first request. */
function validate(options: AuthorizationServerOptions): void {
  if (options.resources.length === 0) throw new TypeError('resources must name at least one');
  for (const resource of options.resources) {
    if (!URL.canParse(resource)) throw new TypeError(`resource ${resource} is not a URL`);
  }
  for (const client of options.clients ?? []) {
    const unknown = client.scopes?.find((scope) => !options.scopes.includes(scope));
    if (unknown !== undefined) {
      throw new TypeError(`client ${client.clientId} has scope ${unknown}, not one of scopes`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Keys.

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, {
    extractable: true,
    modulusLength: 2048,
  });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' };
}

// ---------------------------------------------------------------------------------------------
// Storage shared by the providers of one server (a key rotation makes a new provider).

interface StoredEntry {
  readonly payload: Record<string, unknown>;
  readonly expiresAt: number;
}

/** The models whose records a revoked grant takes with it. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** An oidc-provider adapter factory over one in-memory map, for every provider it is given to. */
function sharedAdapter(): (model: string) => object {
  const store = new Map<string, StoredEntry>();
  const read = (key: string) => {
    const entry = store.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  const findBy = (model: string, field: string, value: unknown) => {
    for (const key of store.keys()) {
      if (!key.startsWith(`${model}:`)) continue;
      const payload = read(key);
      if (payload !== undefined && payload[field] === value) return payload;
    }
    return undefined;
  };
  return (model) => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
        const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
        store.set(keyOf(id), { payload, expiresAt });
      },
      async find(id: string) {
        return read(keyOf(id));
      },
      async findByUid(uid: string) {
        return findBy(model, 'uid', uid);
      },
      async findByUserCode(userCode: string) {
        return findBy(model, 'userCode', userCode);
      },
      async consume(id: string) {
        const payload = read(keyOf(id));
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(keyOf(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const [key, entry] of store) {
          if (GRANTABLE.has(key.slice(0, key.indexOf(':'))) && entry.payload.grantId === grantId) {
            store.delete(key);
          }
        }
      },
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Pages.

/** The registered `client_name` of the client asking, else its id. */
async function clientName(provider: OidcProvider, details: InteractionDetails): Promise<string> {
  const clientId = String(details.params.client_id);
  return (await provider.Client.find(clientId))?.clientName ?? clientId;
}

function loginPage(
  details: InteractionDetails,
  client: string,
  login = '',
  error?: string,
): string {
  const uid = escape(details.uid);
  return page(
    'Sign in',
    `<p>Sign in to continue to <strong>${escape(client)}</strong>.</p>
${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="${INTERACTION_PATH}${uid}/login" autocomplete="off">
  <label>User <input name="login" value="${escape(login)}" required autofocus></label>
  <label>Password <input type="password" name="password" required></label>
  <button type="submit">Sign in</button>
</form>
<form method="post" action="${INTERACTION_PATH}${uid}/abort">
  <button type="submit">Cancel</button>
</form>`,
  );
}

function consentPage(details: InteractionDetails, client: string): string {
  const uid = escape(details.uid);
  const asked = Object.entries(details.prompt.details.missingResourceScopes ?? {}).map(
    ([resource, granted]) =>
      `<li><code>${escape(resource)}</code>: ${granted.map((scope) => `<code>${escape(scope)}</code>`).join(', ')}</li>`,
  );
  const oidc = details.prompt.details.missingOIDCScope ?? [];
  if (oidc.length > 0) asked.push(`<li>your identity: ${oidc.map(escape).join(', ')}</li>`);
  return page(
    'Authorize',
    `<p><strong>${escape(client)}</strong> asks for access as <strong>${escape(details.session?.accountId ?? '')}</strong> to:</p>
<ul>${asked.join('')}</ul>
<form method="post" action="${INTERACTION_PATH}${uid}/confirm">
  <button type="submit" autofocus>Allow</button>
</form>
<form method="post" action="${INTERACTION_PATH}${uid}/abort">
  <button type="submit">Deny</button>
</form>`,
  );
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}input{display:block;width:100%}[role=alert]{color:#b00020}form{display:inline-block;margin:.5rem .5rem 0 0}</style>
</head>
<body>
<h1>${escape(title)}</h1>
${body}
</body>
</html>
`;
}

function escape(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers.

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A resource indicator's canonical spelling, for matching (the audience keeps the configured one). */
function normalize(resource: string): string {
  return URL.parse(resource)?.href ?? resource;
}

// ---------------------------------------------------------------------------------------------
// oidc-provider, typed as far as used here (it ships no types and @types/oidc-provider is not a
// dependency), and loaded quietly.

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface OidcClient {
  readonly clientId: string;
  readonly clientName?: string;
  readonly scope?: string;
  grantTypeAllowed(grantType: string): boolean;
}

interface OidcToken {
  readonly resourceServer?: { readonly accessTokenTTL?: number };
}

interface KoaContext {
  type: string;
  body: unknown;
  readonly oidc: { readonly route: string; readonly params: Record<string, unknown> };
}

interface InteractionDetails {
  readonly uid: string;
  readonly grantId?: string;
  readonly params: Record<string, unknown>;
  readonly session?: { readonly accountId?: string };
  readonly prompt: {
    readonly name: string;
    readonly details: {
      readonly missingOIDCScope?: string[];
      readonly missingOIDCClaims?: string[];
      readonly missingResourceScopes?: Record<string, string[]>;
    };
  };
}

interface OidcGrant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

interface OidcProvider {
  callback(): NodeHandler;
  on(event: string, listener: (...args: any[]) => void): unknown;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  readonly Grant: {
    new (init: { accountId: string; clientId: string }): OidcGrant;
    find(id: string): Promise<OidcGrant | undefined>;
  };
  readonly Client: { find(id: string): Promise<OidcClient | undefined> };
}

interface OidcProviderModule {
  Provider: new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
  errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidScope: new (description: string, scope: string) => Error;
  };
}

let loading: Promise<OidcProviderModule> | undefined;

/**
 * Imports oidc-provider once. On import it may warn that the running Node.js is not a supported
 * runtime (it runs fine); that one warning is dropped, any other output passes through.
 */
function loadOidcProvider(): Promise<OidcProviderModule> {
  loading ??= (async () => {
    const specifier = 'oidc-provider';
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (
        typeof args[0] === 'string' &&
        args[0].includes('oidc-provider WARNING: Unsupported runtime')
      )
        return;
      warn.apply(console, args);
    };
    try {
      return (await import(specifier)) as OidcProviderModule;
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
