/**
 * The authorization server of the signed-in targets (`toolwright-express-auth`,
 * `toolwright-fastify-auth`): a `node:http` server in the harness on a free loopback port that
 * serves its RFC 8414 metadata and a JWKS with one RSA key, and the RS256 access token every
 * request to those targets carries. The servers fetch the metadata and the keys on their first
 * request and keep them, so under load the issuer is idle; it counts what it served, and the
 * report says how often each server fetched.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { BenchFailure, type EraRequests, type ReplayRequest } from './mcp.js';
import { post } from './http-client.js';

/**
 * The endpoint's canonical URL (`mcp.auth.resource`, the tokens' audience), as a proxy in front
 * of it would publish it: the server's own port is chosen when it starts, and the resource is
 * compared with the token's `aud`, never with the request's `Host`.
 */
export const AUTH_RESOURCE = 'https://toolwright-bench.test/mcp';
/** The scope the tokens carry and the servers advertise; `echo` requires none. */
export const AUTH_SCOPE = 'tools:call';
const ALG = 'RS256';
const KID = 'bench-key-1';
/** Tokens outlive any run: the servers check `exp` on every request. */
const TOKEN_LIFETIME_S = 24 * 60 * 60;

export interface Issuer {
  /** The issuer identifier (`iss`), its own origin: `mcp.auth.issuers` of the servers. */
  readonly url: string;
  /** A valid access token for {@link AUTH_RESOURCE}, as the `Authorization` header value. */
  readonly authorization: string;
  /** The same claims signed with a key the issuer never published: every server must refuse it. */
  readonly forged: string;
  /** Requests served so far: the metadata document and the key set. */
  served(): { metadata: number; jwks: number };
  close(): Promise<void>;
}

async function sign(key: CryptoKey, issuer: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: AUTH_SCOPE, client_id: 'toolwright-bench' })
    .setProtectedHeader({ alg: ALG, kid: KID, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject('bench-user')
    .setAudience(AUTH_RESOURCE)
    .setIssuedAt(now)
    .setExpirationTime(now + TOKEN_LIFETIME_S)
    .setJti('bench-token')
    .sign(key);
}

/** Starts the issuer: a fresh RSA key pair (2048 bits), its metadata, its key set and a token. */
export async function startIssuer(): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { modulusLength: 2048 });
  const stranger = await generateKeyPair(ALG, { modulusLength: 2048 });
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: ALG, use: 'sig' }],
  });
  const counts = { metadata: 0, jwks: 0 };
  let metadata = '';
  const send = (response: ServerResponse, status: number, body: string) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') return send(response, 405, '{"error":"invalid_request"}');
    if (path === '/.well-known/oauth-authorization-server') {
      counts.metadata++;
      return send(response, 200, metadata);
    }
    if (path === '/jwks') {
      counts.jwks++;
      return send(response, 200, jwks);
    }
    send(response, 404, '{"error":"not_found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  metadata = JSON.stringify({
    issuer: url,
    authorization_endpoint: `${url}/authorize`,
    token_endpoint: `${url}/token`,
    jwks_uri: `${url}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [AUTH_SCOPE],
  });
  return {
    url,
    authorization: `Bearer ${await sign(privateKey, url)}`,
    forged: `Bearer ${await sign(stranger.privateKey, url)}`,
    served: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The environment that turns `mcp.auth` on in `servers/toolwright.ts`. */
export function authEnv(issuer: Issuer): Record<string, string> {
  return { AUTH_ISSUER: issuer.url, AUTH_RESOURCE: AUTH_RESOURCE, AUTH_SCOPES: AUTH_SCOPE };
}

/** `request` carrying the issuer's token. */
export function withBearer(request: ReplayRequest, issuer: Issuer): ReplayRequest {
  return {
    headers: { ...request.headers, authorization: issuer.authorization },
    body: request.body,
  };
}

export function eraWithBearer(requests: EraRequests, issuer: Issuer): EraRequests {
  const signed = Object.entries(requests).map(([scenario, request]) => [
    scenario,
    withBearer(request, issuer),
  ]);
  return Object.fromEntries(signed) as EraRequests;
}

/**
 * Checks that the server at `url` really signs callers in before it is measured (a build of the
 * library without `mcp.auth` would answer everything): `request` without a token and with the
 * forged one must both get `401` with a `Bearer` challenge.
 */
export async function assertSignsIn(
  url: string,
  request: ReplayRequest,
  issuer: Issuer,
  what: string,
): Promise<void> {
  const { authorization: _, ...anonymous } = request.headers;
  const attempts: Array<[string, Record<string, string>]> = [
    ['without a token', anonymous],
    ['with a token signed by an unknown key', { ...anonymous, authorization: issuer.forged }],
  ];
  for (const [how, headers] of attempts) {
    const response = await post(url, headers, request.body);
    const challenge = String(response.headers['www-authenticate'] ?? '');
    if (response.status !== 401 || !challenge.startsWith('Bearer')) {
      throw new BenchFailure(
        `${what}: a request ${how} got HTTP ${response.status} (${challenge || 'no challenge'}), ` +
          `not a 401 Bearer challenge: is mcp.auth on (a current build of the library)?`,
      );
    }
  }
}
