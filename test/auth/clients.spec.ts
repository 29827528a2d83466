/**
 * The official MCP clients of both generations, each with its own OAuth support, against a Nest
 * app whose MCP endpoint is an OAuth 2.1 resource server (Express and Fastify), and the real
 * authorization server of sample/oauth: client credentials, authorization code with PKCE and
 * dynamic registration, and the step-up challenge (`403 insufficient_scope`).
 *
 * The resource URL is part of the app's configuration and of the authorization server's, so both
 * apps' ports are reserved first: the authorization server starts knowing both resources, then
 * each app is configured with its resource and listens on its reserved port.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  auth as authV1,
  UnauthorizedError as UnauthorizedErrorV1,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider as CredentialsV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  auth as authV2,
  ClientCredentialsProvider as CredentialsV2,
  InsufficientScopeError,
  OAuthError as OAuthErrorV2,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { ToolsModule } from '../../lib/index.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import { ADAPTERS, TestApps, type AdapterName } from '../fixtures/apps.js';
import { callBody, eraHeaders, ERAS } from '../fixtures/mcp-http.js';
import {
  BrowserClientProvider,
  GENERATIONS,
  OAuthSession,
  REDIRECT_URI,
  freePort,
  notesTools,
  trail,
  type Generation,
} from './support.js';

const SCOPES = ['notes:read', 'notes:write'];
const BOTH = SCOPES.join(' ');
/** May only ever hold `notes:read`. */
const READER = { clientId: 'notes-reader', clientSecret: 'reader-secret', scopes: ['notes:read'] };
/** May hold both scopes. */
const WRITER = { clientId: 'notes-writer', clientSecret: 'writer-secret' };
const ALICE = { id: 'alice', password: 'correct horse battery staple' };
const ALL_TOOLS = ['health_ping', 'notes_read', 'notes_write'];
const READ_TOOLS = ['health_ping', 'notes_read'];

const isV1 = (generation: Generation) => generation === 'v1 (2025)';

/** The generation's own client credentials provider (`client_secret_basic`), asking for `scope`. */
function credentials(
  generation: Generation,
  client: { clientId: string; clientSecret: string },
  scope: string,
  issuer: string,
) {
  const options = { ...client, scope, expectedIssuer: issuer };
  return isV1(generation) ? new CredentialsV1(options) : new CredentialsV2(options);
}

/** What a `notes_write` call answers for `caller`: its structured content and its text. */
function written(text: string, caller: { subject: string; clientId: string; scopes: string[] }) {
  const structuredContent = { saved: text, caller };
  return {
    structuredContent,
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
  };
}

describe('the official MCP clients against an OAuth-protected endpoint', () => {
  const ports = {} as Record<AdapterName, number>;
  let as: AuthorizationServer;

  beforeAll(async () => {
    for (const adapter of ADAPTERS) ports[adapter] = await freePort();
    as = await startAuthorizationServer({
      resources: ADAPTERS.map((adapter) => `http://127.0.0.1:${ports[adapter]}/mcp`),
      scopes: SCOPES,
      clients: [READER, WRITER],
      users: [ALICE],
    });
  });
  afterAll(() => as?.close());

  describe.each(ADAPTERS)('on %s', (adapter) => {
    const apps = new TestApps();
    let origin: string;
    let resource: string;
    let metadataUrl: string;
    /** `METHOD AS|RS/path status` of a client's exchanges. */
    const trailOf = (session: OAuthSession) => trail(session.log, { as: as.issuer, rs: origin });

    beforeAll(async () => {
      origin = `http://127.0.0.1:${ports[adapter]}`;
      resource = `${origin}/mcp`;
      metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
      const app = await apps.create(
        {
          imports: [
            ToolsModule.forRoot({
              registry: notesTools(),
              mcp: { auth: { issuers: as.issuer, resource, scopesSupported: SCOPES } },
            }),
          ],
        },
        adapter,
      );
      await app.listen(ports[adapter], '127.0.0.1');
    });
    afterAll(() => apps.closeAll());

    /** The challenge of a token holding only `notes:read` that calls `notes_write`. */
    const stepUpChallenge = () =>
      `Bearer error="insufficient_scope", error_description="This call needs the scopes notes:write.", scope="${BOTH}", resource_metadata="${metadataUrl}"`;

    describe.each(GENERATIONS)('%s client', (generation) => {
      const sessions: OAuthSession[] = [];
      const open = (provider: unknown, options?: Record<string, unknown>) => {
        const session = new OAuthSession(generation, resource, provider, options);
        sessions.push(session);
        return session;
      };
      afterEach(async () => {
        await Promise.all(sessions.splice(0).map((session) => session.close()));
      });

      /** A client credentials token holding only `notes:read`, straight from the AS. */
      const readToken = async (client: typeof READER | typeof WRITER) => ({
        ...(await as.clientCredentialsToken(client, { resource, scope: 'notes:read' })),
        issuer: as.issuer,
      });

      describe('client credentials', () => {
        it('starts without a token: 401, discovery, a token for the resource, then lists and calls', async () => {
          const provider = credentials(generation, WRITER, BOTH, as.issuer);
          const session = open(provider);
          await session.connect();

          expect(trailOf(session).slice(0, 5)).toEqual([
            'POST RS/mcp 401',
            'GET RS/.well-known/oauth-protected-resource/mcp 200',
            'GET AS/.well-known/oauth-authorization-server 200',
            'POST AS/token 200',
            'POST RS/mcp 200',
          ]);
          const [unauthorized, , , tokenRequest] = session.log;
          expect(unauthorized.wwwAuthenticate).toBe(
            `Bearer scope="${BOTH}", resource_metadata="${metadataUrl}"`,
          );
          // RFC 8707: the client names the resource, and the token is issued for it.
          expect(tokenRequest.form).toEqual({
            grant_type: 'client_credentials',
            scope: BOTH,
            resource,
          });
          expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({
            iss: as.issuer,
            aud: resource,
            client_id: WRITER.clientId,
            sub: WRITER.clientId,
            scope: BOTH,
          });

          expect(await session.toolNames()).toEqual(ALL_TOOLS);
          const result = await session.callTool('notes_write', { text: 'from the robot' });
          expect(result.isError).toBeFalsy();
          expect(result).toMatchObject(
            written('from the robot', {
              subject: WRITER.clientId,
              clientId: WRITER.clientId,
              scopes: SCOPES,
            }),
          );
          expect((await session.callTool('health_ping')).structuredContent).toEqual({ ok: true });
        });

        it('a client that may only read: what each generation asks the AS for', async () => {
          const provider = credentials(generation, READER, 'notes:read', as.issuer);
          const session = open(provider);

          if (isV1(generation)) {
            // v1 asks for the scope it was configured with.
            await session.connect();
            expect(session.log[3].form).toEqual({
              grant_type: 'client_credentials',
              scope: 'notes:read',
              resource,
            });
            expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({
              aud: resource,
              scope: 'notes:read',
            });
            expect(await session.toolNames()).toEqual(READ_TOOLS);
            const result = await session.callTool('notes_read');
            expect(result.structuredContent).toEqual({
              notes: ['first note'],
              caller: {
                subject: READER.clientId,
                clientId: READER.clientId,
                scopes: ['notes:read'],
              },
            });
          } else {
            // v2 asks for the scope of the 401 challenge (SEP-835), over its configured one: the
            // AS refuses a scope this client may not have.
            const failure = session.connect();
            await expect(failure).rejects.toBeInstanceOf(OAuthErrorV2);
            await expect(failure).rejects.toMatchObject({
              code: 'invalid_scope',
              message: 'requested scope is not allowed',
            });
            expect(trailOf(session)).toEqual([
              'POST RS/mcp 401',
              'GET RS/.well-known/oauth-protected-resource/mcp 200',
              'GET AS/.well-known/oauth-authorization-server 200',
              'POST AS/token 400',
            ]);
            expect(session.log[3].form).toEqual({
              grant_type: 'client_credentials',
              scope: BOTH,
              resource,
            });
          }
        });
      });

      it('authorization code + PKCE: registers, signs the user in, and calls as the user', async () => {
        const provider = new BrowserClientProvider(ALICE);
        const session = open(provider);

        // No token: the client registers and sends the user to sign in (redirectToAuthorization).
        const first = session.connect();
        await expect(first).rejects.toBeInstanceOf(
          isV1(generation) ? UnauthorizedErrorV1 : UnauthorizedErrorV2,
        );
        await expect(first).rejects.toThrow(/^Unauthorized$/);
        expect(trailOf(session)).toEqual([
          'POST RS/mcp 401',
          'GET RS/.well-known/oauth-protected-resource/mcp 200',
          'GET AS/.well-known/oauth-authorization-server 200',
          'POST AS/reg 201',
        ]);
        const clientId: string = provider.information.client_id;
        expect(provider.information).toMatchObject({
          client_id: expect.any(String),
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
          scope: BOTH,
        });
        expect(provider.authorizationUrls).toHaveLength(1);
        const [authorization] = provider.authorizationUrls;
        expect(authorization.origin + authorization.pathname).toBe(`${as.issuer}/auth`);
        expect(Object.fromEntries(authorization.searchParams)).toEqual({
          response_type: 'code',
          client_id: clientId,
          code_challenge: expect.any(String),
          code_challenge_method: 'S256',
          redirect_uri: REDIRECT_URI,
          scope: BOTH,
          resource,
        });
        const [callback] = provider.callbacks;
        expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
        expect(callback.searchParams.get('iss')).toBe(as.issuer);

        // Back at the client: the code is redeemed (with the verifier and the resource).
        const before = session.log.length;
        await session.finishAuth(callback);
        expect(trailOf(session).slice(before)).toEqual(['POST AS/token 200']);
        expect(session.log[before].form).toEqual({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code'),
          code_verifier: expect.stringMatching(/^[\w.~-]{43,128}$/),
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          resource,
        });
        expect(decodeJwt(provider.saved.access_token)).toMatchObject({
          iss: as.issuer,
          aud: resource,
          sub: ALICE.id,
          client_id: clientId,
          scope: BOTH,
        });

        await session.connect();
        expect(await session.toolNames()).toEqual(ALL_TOOLS);
        const result = await session.callTool('notes_write', { text: 'from alice' });
        expect(result.isError).toBeFalsy();
        expect(result).toMatchObject(
          written('from alice', { subject: ALICE.id, clientId, scopes: SCOPES }),
        );
      });

      describe('step-up (403 insufficient_scope)', () => {
        it('client credentials holding only notes:read', async () => {
          // The client was configured for notes:read and holds such a token already.
          const provider = credentials(generation, WRITER, 'notes:read', as.issuer);
          provider.saveTokens(await readToken(WRITER));
          const session = open(provider);
          await session.connect();
          expect(await session.toolNames()).toEqual(READ_TOOLS);

          const before = session.log.length;
          const call = session.callTool('notes_write', { text: 'stepped up' });
          if (isV1(generation)) {
            // v1 runs its grant again, with its configured scope (not the challenged one), gets
            // the same token, meets the same challenge and gives up.
            await expect(call).rejects.toBeInstanceOf(StreamableHTTPError);
            await expect(call).rejects.toMatchObject({
              code: 403,
              message: 'Streamable HTTP error: Server returned 403 after trying upscoping',
            });
            expect(trailOf(session).slice(before)).toEqual([
              'POST RS/mcp 403',
              'GET RS/.well-known/oauth-protected-resource/mcp 200',
              'GET AS/.well-known/oauth-authorization-server 200',
              'POST AS/token 200',
              'POST RS/mcp 403',
            ]);
            expect(session.log[before].wwwAuthenticate).toBe(stepUpChallenge());
            expect(session.log[before + 3].form).toEqual({
              grant_type: 'client_credentials',
              scope: 'notes:read',
              resource,
            });
            expect(session.log[before + 4].wwwAuthenticate).toBe(stepUpChallenge());

            // Configured for notes:write as well, the same client gets a token that can write.
            const wider = credentials(generation, WRITER, BOTH, as.issuer);
            const writer = open(wider);
            await writer.connect();
            expect(await writer.callTool('notes_write', { text: 'stepped up' })).toMatchObject(
              written('stepped up', {
                subject: WRITER.clientId,
                clientId: WRITER.clientId,
                scopes: SCOPES,
              }),
            );
          } else {
            // v2 asks the AS for the union of its scope and the challenged one, and retries.
            expect(await call).toMatchObject(
              written('stepped up', {
                subject: WRITER.clientId,
                clientId: WRITER.clientId,
                scopes: SCOPES,
              }),
            );
            expect(trailOf(session).slice(before)).toEqual([
              'POST RS/mcp 403',
              'GET RS/.well-known/oauth-protected-resource/mcp 200',
              'GET AS/.well-known/oauth-authorization-server 200',
              'POST AS/token 200',
              'POST RS/mcp 200',
            ]);
            expect(session.log[before].wwwAuthenticate).toBe(stepUpChallenge());
            expect(session.log[before + 3].form).toEqual({
              grant_type: 'client_credentials',
              scope: BOTH,
              resource,
            });
            expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({
              aud: resource,
              client_id: WRITER.clientId,
              scope: BOTH,
            });
            expect(await session.toolNames()).toEqual(ALL_TOOLS);
          }
        });

        it('client credentials of a client the AS never gives notes:write', async () => {
          const provider = credentials(generation, READER, 'notes:read', as.issuer);
          provider.saveTokens(await readToken(READER));
          const session = open(provider);
          await session.connect();

          const call = session.callTool('notes_write', { text: 'nope' });
          if (isV1(generation)) {
            await expect(call).rejects.toBeInstanceOf(StreamableHTTPError);
            await expect(call).rejects.toMatchObject({
              code: 403,
              message: 'Streamable HTTP error: Server returned 403 after trying upscoping',
            });
          } else {
            // The step-up token request is refused by the AS, and that error surfaces.
            await expect(call).rejects.toBeInstanceOf(OAuthErrorV2);
            await expect(call).rejects.toMatchObject({
              code: 'invalid_scope',
              message: 'requested scope is not allowed',
            });
            expect(trailOf(session).slice(-2)).toEqual([
              'GET AS/.well-known/oauth-authorization-server 200',
              'POST AS/token 400',
            ]);
          }
          // Reading still works on the same client.
          expect((await session.callTool('notes_read')).structuredContent).toMatchObject({
            caller: { clientId: READER.clientId, scopes: ['notes:read'] },
          });
        });

        it('a static notes:read token, no OAuth provider: the challenge surfaces as an error', async () => {
          const { access_token } = await readToken(WRITER);
          const session = open(undefined, {
            requestInit: { headers: { authorization: `Bearer ${access_token}` } },
          });
          await session.connect();
          const call = session.callTool('notes_write', { text: 'nope' });
          if (isV1(generation)) {
            const error: any = await call.catch((e: unknown) => e);
            expect(error).toBeInstanceOf(StreamableHTTPError);
            expect(error.code).toBe(403);
            const prefix = 'Streamable HTTP error: Error POSTing to endpoint: ';
            expect(error.message.startsWith(prefix)).toBe(true);
            expect(JSON.parse(error.message.slice(prefix.length))).toEqual({
              jsonrpc: '2.0',
              id: expect.any(Number),
              error: {
                code: -32003,
                message: 'Insufficient scope: this call needs the scopes notes:write.',
                data: { error: 'insufficient_scope', requiredScopes: ['notes:write'] },
              },
            });
          } else {
            const error: any = await call.catch((e: unknown) => e);
            expect(error).toBeInstanceOf(InsufficientScopeError);
            expect(error.message).toBe(`Insufficient scope: required "${BOTH}"`);
            expect(error.requiredScope).toBe(BOTH);
            expect(String(error.resourceMetadataUrl)).toBe(metadataUrl);
            expect(error.errorDescription).toBe('This call needs the scopes notes:write.');
          }
          expect(trailOf(session).at(-1)).toBe('POST RS/mcp 403');
          expect(session.log.at(-1)!.wwwAuthenticate).toBe(stepUpChallenge());
        });

        /**
         * A user-facing client registered for both scopes (and `offline_access` with a refresh
         * token) whose user signed in granting notes:read only, connected with that token.
         */
        async function userWithReadToken(refresh: boolean) {
          const provider = new BrowserClientProvider(
            ALICE,
            refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
          );
          const registration = await fetch(`${as.issuer}/reg`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              ...provider.clientMetadata,
              scope: refresh ? `${BOTH} offline_access` : BOTH,
            }),
          });
          expect(registration.status).toBe(201);
          const registered = (await registration.json()) as Record<string, unknown>;
          provider.saveClientInformation({ ...registered, issuer: as.issuer });
          const signIn = isV1(generation) ? authV1 : authV2;
          expect(await signIn(provider, { serverUrl: resource, scope: 'notes:read' })).toBe(
            'REDIRECT',
          );
          const granted = provider.callbacks[0].searchParams;
          expect(
            await signIn(provider, {
              serverUrl: resource,
              authorizationCode: granted.get('code')!,
              ...(!isV1(generation) && { iss: granted.get('iss')! }),
            }),
          ).toBe('AUTHORIZED');
          expect(decodeJwt(provider.saved.access_token)).toMatchObject({
            sub: ALICE.id,
            scope: 'notes:read',
          });
          expect(provider.saved.refresh_token !== undefined).toBe(refresh);

          const session = open(provider);
          await session.connect();
          expect(await session.toolNames()).toEqual(READ_TOOLS);
          return { provider, session, clientId: provider.information.client_id as string };
        }

        /** The user consents in the browser; the code is redeemed; the same client writes. */
        async function consentAndWrite(
          provider: BrowserClientProvider,
          session: OAuthSession,
          clientId: string,
        ) {
          await session.finishAuth(provider.callbacks.at(-1)!);
          expect(decodeJwt(provider.saved.access_token)).toMatchObject({
            aud: resource,
            sub: ALICE.id,
            scope: BOTH,
          });
          expect(await session.callTool('notes_write', { text: 'stepped up' })).toMatchObject(
            written('stepped up', { subject: ALICE.id, clientId, scopes: SCOPES }),
          );
        }

        it('a user holding only notes:read is sent to sign in again for both scopes', async () => {
          const { provider, session, clientId } = await userWithReadToken(false);

          // Both generations start a new authorization asking for the union of the scopes.
          const call = session.callTool('notes_write', { text: 'stepped up' });
          await expect(call).rejects.toBeInstanceOf(
            isV1(generation) ? UnauthorizedErrorV1 : UnauthorizedErrorV2,
          );
          await expect(call).rejects.toThrow(/^Unauthorized$/);
          expect(trailOf(session).at(-1)).toBe('POST RS/mcp 403');
          expect(session.log.at(-1)!.wwwAuthenticate).toBe(stepUpChallenge());
          expect(provider.authorizationUrls).toHaveLength(2);
          expect(Object.fromEntries(provider.authorizationUrls[1].searchParams)).toEqual({
            response_type: 'code',
            client_id: clientId,
            code_challenge: expect.any(String),
            code_challenge_method: 'S256',
            redirect_uri: REDIRECT_URI,
            scope: BOTH,
            resource,
          });

          await consentAndWrite(provider, session, clientId);
        });

        it('a user holding only notes:read and a refresh token', async () => {
          const { provider, session, clientId } = await userWithReadToken(true);
          const before = session.log.length;
          const call = session.callTool('notes_write', { text: 'stepped up' });

          if (isV1(generation)) {
            // v1 refreshes the token, which cannot widen its scope, meets the same challenge and
            // gives up; the user is never asked.
            await expect(call).rejects.toBeInstanceOf(StreamableHTTPError);
            await expect(call).rejects.toMatchObject({
              code: 403,
              message: 'Streamable HTTP error: Server returned 403 after trying upscoping',
            });
            expect(trailOf(session).slice(before)).toEqual([
              'POST RS/mcp 403',
              'POST AS/token 200',
              'POST RS/mcp 403',
            ]);
            expect(session.log[before + 1].form).toEqual({
              grant_type: 'refresh_token',
              refresh_token: expect.any(String),
              client_id: clientId,
              resource,
            });
            expect(provider.authorizationUrls).toHaveLength(1);
            expect(decodeJwt(provider.saved.access_token)).toMatchObject({ scope: 'notes:read' });

            // Only without the refresh token does v1 send the user to sign in, for both scopes
            // (those of the 401 challenge).
            provider.saved = undefined;
            const again = session.callTool('notes_write', { text: 'stepped up' });
            await expect(again).rejects.toBeInstanceOf(UnauthorizedErrorV1);
            expect(trailOf(session).at(-1)).toBe('POST RS/mcp 401');
            expect(provider.authorizationUrls).toHaveLength(2);
            expect(provider.authorizationUrls[1].searchParams.get('scope')).toBe(BOTH);
          } else {
            // v2 knows a refresh cannot widen the scope and starts a new authorization.
            await expect(call).rejects.toBeInstanceOf(UnauthorizedErrorV2);
            expect(trailOf(session).slice(before)).toEqual(['POST RS/mcp 403']);
            expect(provider.authorizationUrls).toHaveLength(2);
            expect(Object.fromEntries(provider.authorizationUrls[1].searchParams)).toMatchObject({
              client_id: clientId,
              scope: `${BOTH} offline_access`,
              prompt: 'consent',
              resource,
            });
          }

          await consentAndWrite(provider, session, clientId);
        });
      });
    });

    it.each(ERAS)(
      'answers a %s tools/call whose token lacks notes:write with 403 insufficient_scope',
      async (era) => {
        const { access_token } = await as.clientCredentialsToken(READER, {
          resource,
          scope: 'notes:read',
        });
        const response = await fetch(resource, {
          method: 'POST',
          headers: {
            ...eraHeaders(era, 'tools/call', 'notes_write'),
            authorization: `Bearer ${access_token}`,
          },
          body: callBody(era, 'notes_write', { text: 'nope' }, 42),
        });
        expect(response.status).toBe(403);
        expect(response.headers.get('www-authenticate')).toBe(stepUpChallenge());
        expect(await response.json()).toEqual({
          jsonrpc: '2.0',
          id: 42,
          error: {
            code: -32003,
            message: 'Insufficient scope: this call needs the scopes notes:write.',
            data: { error: 'insufficient_scope', requiredScopes: ['notes:write'] },
          },
        });
      },
    );
  });
});
