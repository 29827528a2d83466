import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyResult,
} from 'jose';
import {
  startAuthorizationServer,
  TokenRequestError,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import { signInAsBrowser } from '../fixtures/browser-sign-in.js';
import {
  FORGED_TOKEN_KINDS,
  forgeToken,
  OVERSIZED_TOKEN_LENGTH,
  signToken,
  TAMPERED_EXTRA_SCOPE,
  type ForgeContext,
  type ForgedTokenKind,
} from '../fixtures/forged-tokens.js';
import {
  authorizationRequest,
  postForm,
  REDIRECT_URI,
  registerPublicClient,
  userAccessToken,
} from './support.js';

const SCOPES = ['tickets:read', 'tickets:write'];
const READER = { clientId: 'reader-bot', clientSecret: 'reader-secret', scopes: ['tickets:read'] };
const WRITER = { clientId: 'writer-bot', clientSecret: 'writer-secret' };
const ALICE = { id: 'alice', password: 'correct horse battery staple' };

/**
 * A stand-in for the resource server: the RFC 9728 metadata naming the authorization server (the
 * MCP SDK discovers it there), and `/headers`, which reports the Authorization header it got.
 */
class ResourceStub {
  issuer = '';
  #server: Server | undefined;
  resource = '';

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://stub').pathname;
      if (path.startsWith('/.well-known/oauth-protected-resource')) {
        const metadata = {
          resource: this.resource,
          authorization_servers: [this.issuer],
          scopes_supported: SCOPES,
          bearer_methods_supported: ['header'],
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      } else if (path === '/headers') {
        const length = req.headers.authorization?.length ?? 0;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ length }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.resource = `http://127.0.0.1:${port}/mcp`;
    return this.resource;
  }

  async close(): Promise<void> {
    if (this.#server === undefined) return;
    const server = this.#server;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

function verify(as: AuthorizationServer, token: string, audience: string) {
  return jwtVerify(token, createRemoteJWKSet(new URL(as.jwksUri)), {
    issuer: as.issuer,
    audience,
    algorithms: ['RS256'],
  });
}

describe('the test authorization server', () => {
  const stub = new ResourceStub();
  let as: AuthorizationServer;
  let resource: string;

  beforeAll(async () => {
    resource = await stub.start();
    as = await startAuthorizationServer({
      resources: [resource],
      scopes: SCOPES,
      clients: [READER, WRITER],
      users: [ALICE],
    });
    stub.issuer = as.issuer;
  });

  afterAll(async () => {
    await as?.close();
    await stub.close();
  });

  it('publishes RFC 8414 and OpenID discovery naming its keys, endpoints and S256', async () => {
    const documents = [];
    for (const path of ['oauth-authorization-server', 'openid-configuration']) {
      const response = await fetch(`${as.issuer}/.well-known/${path}`);
      expect(response.status).toBe(200);
      documents.push((await response.json()) as Record<string, unknown>);
    }
    expect(documents[0]).toStrictEqual(documents[1]);
    expect(as.issuer).toBe(`http://127.0.0.1:${as.port}`);
    expect(documents[0]).toMatchObject({
      issuer: as.issuer,
      jwks_uri: as.jwksUri,
      authorization_endpoint: `${as.issuer}/auth`,
      token_endpoint: `${as.issuer}/token`,
      registration_endpoint: `${as.issuer}/reg`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: expect.arrayContaining([
        'authorization_code',
        'client_credentials',
        'refresh_token',
      ]),
      token_endpoint_auth_methods_supported: expect.arrayContaining([
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]),
      scopes_supported: expect.arrayContaining(SCOPES),
    });
  });

  describe('client credentials', () => {
    it('issues a JWT for the resource with the scope asked for, verifiable against the JWKS', async () => {
      const answer = await as.clientCredentialsToken(WRITER, { resource, scope: SCOPES.join(' ') });
      expect(answer).toMatchObject({
        token_type: 'Bearer',
        expires_in: 300,
        scope: SCOPES.join(' '),
      });

      const { payload, protectedHeader } = await verify(as, answer.access_token, resource);
      const keys = ((await (await fetch(as.jwksUri)).json()) as { keys: { kid: string }[] }).keys;
      expect(protectedHeader).toStrictEqual({ alg: 'RS256', typ: 'at+jwt', kid: keys[0].kid });
      expect(payload).toStrictEqual({
        iss: as.issuer,
        aud: resource,
        sub: WRITER.clientId,
        client_id: WRITER.clientId,
        scope: 'tickets:read tickets:write',
        iat: expect.any(Number),
        exp: expect.any(Number),
        jti: expect.any(String),
      });
      expect(payload.exp! - payload.iat!).toBe(300);
    });

    it('authenticates with client_secret_post as well, and refuses a wrong secret', async () => {
      const token = `${as.issuer}/token`;
      const form = { grant_type: 'client_credentials', resource, scope: 'tickets:read' };
      const post = await postForm(token, {
        ...form,
        client_id: READER.clientId,
        client_secret: READER.clientSecret,
      });
      expect(post.status).toBe(200);
      expect(decodeJwt(post.body.access_token)).toMatchObject({
        aud: resource,
        scope: 'tickets:read',
      });

      const wrong = await postForm(token, {
        ...form,
        client_id: READER.clientId,
        client_secret: 'not-the-secret',
      });
      expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    });

    it('refuses a scope the client may not have, and one nobody has', async () => {
      for (const scope of ['tickets:write', 'tickets:read tickets:delete']) {
        const refusal = as.clientCredentialsToken(READER, { resource, scope });
        await expect(refusal).rejects.toBeInstanceOf(TokenRequestError);
        await expect(refusal).rejects.toMatchObject({ status: 400, error: 'invalid_scope' });
      }
    });

    it('refuses a resource it does not serve', async () => {
      const other = new URL('/elsewhere', resource).href;
      await expect(
        as.clientCredentialsToken(WRITER, { resource: other, scope: 'tickets:read' }),
      ).rejects.toMatchObject({ status: 400, error: 'invalid_target' });
    });
  });

  describe('authorization code + PKCE', () => {
    it('signs a user in for a registered public client and issues a JWT for the resource', async () => {
      const clientId = await registerPublicClient(as.issuer);
      const { url, verifier, state } = authorizationRequest(as.issuer, clientId, {
        scope: 'tickets:read tickets:write',
        resource,
      });

      const redirect = await signInAsBrowser(url, ALICE);
      expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
      expect(redirect.searchParams.get('state')).toBe(state);
      expect(redirect.searchParams.get('iss')).toBe(as.issuer);
      const code = redirect.searchParams.get('code')!;
      expect(code).toEqual(expect.any(String));

      const token = `${as.issuer}/token`;
      const exchange = {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        resource,
      };
      const wrongVerifier = await postForm(token, { ...exchange, code_verifier: 'x'.repeat(43) });
      expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

      const { status, body } = await postForm(token, { ...exchange, code_verifier: verifier });
      expect(status).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', scope: 'tickets:read tickets:write' });
      const { payload } = await verify(as, body.access_token, resource);
      expect(payload).toMatchObject({
        iss: as.issuer,
        aud: resource,
        sub: ALICE.id,
        client_id: clientId,
        scope: 'tickets:read tickets:write',
      });

      // A refresh without `resource` keeps the granted one.
      const refreshed = await postForm(token, {
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token,
        client_id: clientId,
      });
      expect(refreshed.status).toBe(200);
      const again = await verify(as, refreshed.body.access_token, resource);
      expect(again.payload).toMatchObject({ aud: resource, sub: ALICE.id });
    });

    it('grants only the scopes asked for', async () => {
      const token = await userAccessToken(as.issuer, ALICE, { scope: 'tickets:read', resource });
      expect(decodeJwt(token)).toMatchObject({ aud: resource, scope: 'tickets:read' });
    });

    it('hands out no code for a wrong password', async () => {
      const clientId = await registerPublicClient(as.issuer);
      const { url } = authorizationRequest(as.issuer, clientId, {
        scope: 'tickets:read',
        resource,
      });
      await expect(signInAsBrowser(url, { id: ALICE.id, password: 'wrong' })).rejects.toThrow(
        /sign-in refused for "alice": Wrong user or password/,
      );
      await expect(signInAsBrowser(url, { id: 'mallory', password: 'x' })).rejects.toThrow(
        /sign-in refused/,
      );
    });

    it('refuses a request without a PKCE challenge, and one for an unknown resource', async () => {
      const clientId = await registerPublicClient(as.issuer);
      const withoutPkce = authorizationRequest(as.issuer, clientId, {
        scope: 'tickets:read',
        resource,
        code_challenge: undefined,
        code_challenge_method: undefined,
      });
      const noPkce = await signInAsBrowser(withoutPkce.url, ALICE);
      expect(noPkce.searchParams.get('error')).toBe('invalid_request');
      expect(noPkce.searchParams.has('code')).toBe(false);

      const unknown = authorizationRequest(as.issuer, clientId, {
        scope: 'tickets:read',
        resource: new URL('/elsewhere', resource).href,
      });
      const refused = await signInAsBrowser(unknown.url, ALICE);
      expect(refused.searchParams.get('error')).toBe('invalid_target');
      expect(refused.searchParams.has('code')).toBe(false);
    });

    it('signs in an MCP SDK client: RFC 9728 discovery, registration, PKCE, resource', async () => {
      const client = new SdkClient();
      expect(await auth(client, { serverUrl: resource })).toBe('REDIRECT');

      const url = client.authorizationUrl!;
      expect(url.origin).toBe(as.issuer);
      expect(url.searchParams.get('resource')).toBe(resource);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      const redirect = await signInAsBrowser(url, ALICE);
      const code = redirect.searchParams.get('code')!;
      expect(await auth(client, { serverUrl: resource, authorizationCode: code })).toBe(
        'AUTHORIZED',
      );

      const { payload } = await verify(as, client.saved!.access_token, resource);
      expect(payload).toMatchObject({
        aud: resource,
        sub: ALICE.id,
        client_id: client.information!.client_id,
        scope: SCOPES.join(' '),
      });
    });
  });

  describe('forged tokens', () => {
    let context: ForgeContext;

    beforeAll(async () => {
      context = { issuer: as.issuer, audience: resource, signingKey: await as.signingKey() };
    });

    /** The jose error code each defect earns, when verified like a resource server would. */
    const refusals: Record<Exclude<ForgedTokenKind, `oversized-${string}`>, string> = {
      'wrong-audience': 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      'wrong-issuer': 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      expired: 'ERR_JWT_EXPIRED',
      'not-yet-valid': 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      'alg-none': 'ERR_JOSE_ALG_NOT_ALLOWED',
      'hs256-key-confusion': 'ERR_JOSE_ALG_NOT_ALLOWED',
      'tampered-signature': 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      'unknown-kid': 'ERR_JWKS_NO_MATCHING_KEY',
      'malformed-base64': 'ERR_JWS_INVALID',
    };

    it('the control token, signed the same way, verifies', async () => {
      const { payload } = await verify(as, await signToken(context), resource);
      expect(payload).toMatchObject({ iss: as.issuer, aud: resource, scope: 'tickets:read' });
    });

    it('covers every kind', () => {
      const oversized = FORGED_TOKEN_KINDS.filter((kind) => kind.startsWith('oversized-'));
      expect([...Object.keys(refusals), ...oversized].sort()).toStrictEqual(
        [...FORGED_TOKEN_KINDS].sort(),
      );
    });

    it.each(Object.entries(refusals))('%s is refused by jwtVerify (%s)', async (kind, code) => {
      const token = await forgeToken(kind as ForgedTokenKind, context);
      await expect(verify(as, token, resource)).rejects.toMatchObject({ code });
    });

    it('a tampered token claims more than was signed', async () => {
      const token = await forgeToken('tampered-signature', context);
      expect(decodeJwt(token).scope).toBe(`tickets:read ${TAMPERED_EXTRA_SCOPE}`);
    });

    it('an unknown kid is not in the JWKS', async () => {
      const { kid } = decodeProtectedHeader(await forgeToken('unknown-kid', context));
      const { keys } = (await (await fetch(as.jwksUri)).json()) as { keys: { kid: string }[] };
      expect(kid).toEqual(expect.any(String));
      expect(keys.map((key) => key.kid)).not.toContain(kid);
    });

    it.each(['oversized-header', 'oversized-payload'] as const)(
      '%s is ~11 KiB of JSON, validly signed, and its Authorization header fits in Node',
      async (kind) => {
        const token = await forgeToken(kind, context);
        expect(token.length).toBeLessThanOrEqual(OVERSIZED_TOKEN_LENGTH);
        expect(token.length).toBeGreaterThan(OVERSIZED_TOKEN_LENGTH - 4);
        const segment = token.split('.')[kind === 'oversized-header' ? 0 : 1];
        const json = Buffer.from(segment, 'base64url').toString('utf8');
        expect(json.length).toBeGreaterThan(10.5 * 1024);
        expect(json.length).toBeLessThan(11.5 * 1024);
        // Only its size is wrong: signature and claims pass.
        const result: JWTVerifyResult<JWTPayload> = await verify(as, token, resource);
        expect(result.payload.aud).toBe(resource);
        // And a default Node server takes the header (no 431).
        const response = await fetch(new URL('/headers', resource), {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toStrictEqual({ length: 'Bearer '.length + token.length });
      },
    );
  });
});

describe('the test authorization server, under test controls', () => {
  const stub = new ResourceStub();
  let resource: string;
  let as: AuthorizationServer;

  beforeAll(async () => {
    resource = await stub.start();
  });

  beforeEach(async () => {
    as = await startAuthorizationServer({
      resources: [resource],
      scopes: SCOPES,
      clients: [WRITER],
      users: [ALICE],
    });
    stub.issuer = as.issuer;
  });

  afterEach(() => as.close());
  afterAll(() => stub.close());

  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const servedKids = async () =>
    ((await (await fetch(as.jwksUri)).json()) as { keys: { kid: string }[] }).keys.map(
      (key) => key.kid,
    );
  const token = async () =>
    (await as.clientCredentialsToken(WRITER, { resource, scope: 'tickets:read' })).access_token;

  it('rotateKeys signs with a new kid, serves the new and the previous key, keeps everything else', async () => {
    const clientId = await registerPublicClient(as.issuer);
    const before = await token();
    const firstKid = kidOf(before);
    expect(await servedKids()).toStrictEqual([firstKid]);
    expect((await as.signingKey()).kid).toBe(firstKid);

    const { issuer, port } = as;
    await as.rotateKeys();
    const after = await token();
    const secondKid = kidOf(after);
    expect(secondKid).not.toBe(firstKid);
    expect(await as.signingKey()).toMatchObject({
      kid: secondKid,
      alg: 'RS256',
      d: expect.any(String),
    });
    expect(await servedKids()).toStrictEqual([secondKid, firstKid]);
    expect([as.issuer, as.port]).toStrictEqual([issuer, port]);
    await expect(verify(as, before, resource)).resolves.toBeDefined();
    await expect(verify(as, after, resource)).resolves.toBeDefined();

    // A client registered before the rotation still signs users in.
    const { url } = authorizationRequest(as.issuer, clientId, { scope: 'tickets:read', resource });
    expect((await signInAsBrowser(url, ALICE)).searchParams.has('code')).toBe(true);

    // One more rotation retires the first key.
    await as.rotateKeys();
    const kids = await servedKids();
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(secondKid);
    await expect(verify(as, before, resource)).rejects.toMatchObject({
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
    await expect(verify(as, after, resource)).resolves.toBeDefined();
  });

  it('setJwksAvailable(false) makes the jwks_uri answer 503, and every request counts', async () => {
    expect(as.jwksRequests).toBe(0);
    expect((await fetch(as.jwksUri)).status).toBe(200);
    expect(as.jwksRequests).toBe(1);

    as.setJwksAvailable(false);
    const down = await fetch(as.jwksUri);
    expect(down.status).toBe(503);
    expect(await down.json()).toStrictEqual({ error: 'temporarily_unavailable' });
    await expect(verify(as, await token(), resource)).rejects.toMatchObject({
      code: 'ERR_JOSE_GENERIC',
    });
    expect(as.jwksRequests).toBe(3);

    as.setJwksAvailable(true);
    await expect(verify(as, await token(), resource)).resolves.toBeDefined();
    expect(as.jwksRequests).toBe(4);
    // Discovery and tokens are not the jwks_uri.
    await fetch(`${as.issuer}/.well-known/oauth-authorization-server`);
    expect(as.jwksRequests).toBe(4);
  });
});

/** An MCP SDK OAuth client provider that keeps everything in memory and records the redirect. */
class SdkClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  #verifier = '';

  get redirectUrl() {
    return REDIRECT_URI;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK spec client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    return this.#verifier;
  }
}
