/**
 * The MCP endpoint as an OAuth 2.1 resource server, against a real authorization server
 * (oidc-provider, in-process): the protected resource metadata, the 401 challenge on every method
 * before the body is read, the refusal of every forged token, the 403 step-up challenge on both
 * eras, tool scopes in listings, the principal reaching resolvers, guards and handlers (never the
 * logs), the application's own guard on the route after the sign-in, headers over Node's limit,
 * key rotation, an unreachable key set and one that never answers. On Express and Fastify.
 */
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  Controller,
  ForbiddenException,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type LoggerService,
  type ModuleMetadata,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import {
  defineRuntimeTool,
  McpEndpoint,
  ToolEvents,
  ToolsConfigurationError,
  ToolsModule,
  type McpAuthOptions,
  type McpOptions,
  type ToolCallEvent,
  type ToolPrincipal,
} from '../../lib/index.js';
import type { ToolDefinition } from '../../lib/core/registry.js';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../sample/oauth/authorization-server.js';
import { ADAPTERS, TestApps, type AdapterName } from '../fixtures/apps.js';
import { RecordingLogger } from '../fixtures/logs.js';
import { FORGED_TOKEN_KINDS, forgeToken, signToken } from '../fixtures/forged-tokens.js';
import {
  callBody,
  eraHeaders,
  ERAS,
  listBody,
  post,
  raw,
  toolPayload,
} from '../fixtures/mcp-http.js';
import { userAccessToken } from './support.js';
import { MCP_MESSAGES } from '../../lib/mcp/mcp.messages.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import type { ToolsModuleFactoryOptions } from '../../lib/nest/interfaces/tools-module-options.interface.js';

const SCOPES = ['notes:read', 'notes:write'];
const CLIENT = { clientId: 'robot', clientSecret: 'robot-secret' };
/** A client the authorization server knows and the application's own guard does not let in. */
const OUTSIDER = { clientId: 'outsider', clientSecret: 'outsider-secret' };
/** A user signing in through the browser flow: the `sub` of their tokens. */
const USER = { id: 'kestrel-5501', password: 'kestrel signs in' };

const principalOf = (context: unknown) => (context as { principal?: ToolPrincipal }).principal;

const readNotes = defineRuntimeTool({
  description: 'Read the notes',
  identity: { serviceName: 'notes', action: 'read', method: 'GET' },
  input: z.object({}),
  scopes: ['notes:read'],
  handler: ({ context }) => ({ notes: ['a'], reader: principalOf(context)?.clientId }),
});
const writeNote = defineRuntimeTool({
  description: 'Write a note',
  identity: { serviceName: 'notes', action: 'write', method: 'POST' },
  input: z.object({ text: z.string() }),
  scopes: ['notes:write'],
  handler: ({ input }) => ({ written: input.text }),
});
const ping = defineRuntimeTool({
  description: 'Ping',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  handler: () => ({ pong: true }),
});
/** Fails with a plain Error: the caller sees INTERNAL_SERVER_ERROR, and the failure is logged. */
const balanceLedger = defineRuntimeTool({
  description: 'Balance the ledger',
  identity: { serviceName: 'ledger', action: 'balance', method: 'POST' },
  input: z.object({}),
  scopes: ['notes:read'],
  handler: (): never => {
    throw new Error('The ledger does not balance.');
  },
});

/** What the application's own Nest guard saw: the verified `request.auth`, per request. */
const guardSaw: unknown[] = [];
@Injectable()
class RecordingGuard implements CanActivate {
  canActivate(context: ExecutionContext) {
    guardSaw.push((context.switchToHttp().getRequest() as { auth?: unknown }).auth);
    return true;
  }
}

/** What the MCP route's own guard saw: the verified `request.auth`, per request. */
const routeGuardSaw: unknown[] = [];
/** The application's own guard on its MCP controller: it lets in the clients it knows. */
@Injectable()
class KnownClients implements CanActivate {
  canActivate(context: ExecutionContext) {
    const auth = context.switchToHttp().getRequest<{ auth?: { clientId?: string } }>().auth;
    routeGuardSaw.push(auth);
    if (auth?.clientId !== CLIENT.clientId) {
      throw new ForbiddenException('This client may not use the notes endpoint.');
    }
    return true;
  }
}

/** The endpoint mounted as the application's controller (`mount: false`), behind its guard. */
@Controller('mcp')
@UseGuards(KnownClients)
class GuardedMcpController extends McpEndpoint {}

/** An HTTP server that takes every request and never answers it: an issuer that hangs. */
async function hangingServer() {
  const paths: string[] = [];
  const server = createServer((request) => void paths.push(request.url ?? ''));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    /** The path of every request it took. */
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The endpoint's resource identifier (the tokens' audience); the applications listen on any port. */
const RESOURCE = 'https://notes.example/mcp';
const METADATA_URL = 'https://notes.example/.well-known/oauth-protected-resource/mcp';

interface Served {
  url: string;
  base: string;
  resource: string;
  events: ToolCallEvent[];
  resolverSaw: unknown[];
}

/** What an application adds to the endpoint of {@link serve}. */
interface Setup {
  /** Tools besides the notes tools and the ping. */
  tools?: readonly ToolDefinition[];
  /** The `mcp` options besides `auth`. */
  mcp?: Omit<McpOptions, 'auth'>;
  controllers?: ModuleMetadata['controllers'];
  providers?: ModuleMetadata['providers'];
  /** Nest's logger; none by default. */
  logger?: LoggerService;
}

const apps = new TestApps();
let as: AuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({
    resources: [RESOURCE],
    scopes: SCOPES,
    clients: [
      { ...CLIENT, scopes: SCOPES },
      { ...OUTSIDER, scopes: SCOPES },
    ],
    users: [USER],
  });
});
afterEach(() => apps.closeAll());
afterAll(() => as?.close());

async function serve(
  adapter: AdapterName,
  auth: Partial<McpAuthOptions> = {},
  setup: Setup = {},
): Promise<Served> {
  const resource = RESOURCE;
  const resolverSaw: unknown[] = [];
  const app = await apps.create(
    {
      imports: [
        ToolsModule.forRoot({
          registry: [readNotes, writeNote, ping, ...(setup.tools ?? [])],
          context: (request: { auth?: unknown }) => {
            resolverSaw.push(request.auth);
            return { tenant: 'acme' };
          },
          mcp: {
            ...setup.mcp,
            auth: { issuers: as.issuer, resource, scopesSupported: SCOPES, ...auth },
          },
        }),
      ],
      controllers: setup.controllers ?? [],
      providers: [{ provide: APP_GUARD, useClass: RecordingGuard }, ...(setup.providers ?? [])],
    },
    adapter,
    { ...(setup.logger && { logger: setup.logger }) },
  );
  const events: ToolCallEvent[] = [];
  app.get(ToolEvents).events$.subscribe((event) => events.push(event));
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url: `${base}/mcp`, base, resource, events, resolverSaw };
}

const token = async (scope: string, client = CLIENT) =>
  (await as.clientCredentialsToken(client, { resource: served.resource, scope })).access_token;
let served: Served;

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const challenge = (error?: string) =>
  (error ? `Bearer error="invalid_token", error_description="${error}", ` : 'Bearer ') +
  `scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`;

describe.each(ADAPTERS)('the MCP endpoint as a protected resource (%s)', (adapter) => {
  beforeAll(() => {
    guardSaw.length = 0;
  });

  it('serves its protected resource metadata at the path-aware well-known URL, readable cross-origin', async () => {
    served = await serve(adapter);
    const document = await raw(`${served.base}/.well-known/oauth-protected-resource/mcp`, {
      method: 'GET',
      headers: { origin: 'https://inspector.example' },
    });
    expect(document.status).toBe(200);
    expect(document.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(document.text)).toEqual({
      resource: served.resource,
      authorization_servers: [as.issuer],
      scopes_supported: SCOPES,
    });
    const preflight = await raw(`${served.base}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://inspector.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toBe('mcp-protocol-version');
    const posted = await raw(`${served.base}/.well-known/oauth-protected-resource/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(posted.status).toBe(405);
  });

  it('answers every method of the route without a token 401 with the challenge, before reading the body', async () => {
    served = await serve(adapter);
    const headers = eraHeaders('legacy', 'tools/list');
    const answers = [
      await post(served.url, listBody('legacy'), headers),
      await post(served.url, '{"jsonrpc":"2.0","id":1,"method":', headers),
      // Over Express's and Fastify's JSON limits: a 413 had the body been read first.
      await post(served.url, JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 1) }), headers),
      await raw(served.url, { method: 'GET', headers: { accept: 'text/event-stream' } }),
      await raw(served.url, { method: 'DELETE' }),
    ];
    for (const answer of answers) {
      expect({ status: answer.status, challenge: answer.headers['www-authenticate'] }).toEqual({
        status: 401,
        challenge: challenge(),
      });
    }
    expect(guardSaw).toEqual([]);
    expect(served.resolverSaw).toEqual([]);
  });

  it('refuses a token in the query string', async () => {
    served = await serve(adapter);
    const answer = await post(
      `${served.url}?access_token=${await token('notes:read')}`,
      listBody('legacy'),
      eraHeaders('legacy', 'tools/list'),
    );
    expect({ status: answer.status, body: JSON.parse(answer.text) }).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'Access tokens are not accepted in the query string.',
      },
    });
  });

  it.each(FORGED_TOKEN_KINDS)(
    'answers a forged token (%s) 401 invalid_token, never 5xx',
    async (kind) => {
      served = await serve(adapter);
      const forged = await forgeToken(kind, {
        issuer: as.issuer,
        audience: served.resource,
        signingKey: await as.signingKey(),
        scope: 'notes:read notes:write',
      });
      const answer = await post(served.url, listBody('legacy'), {
        ...eraHeaders('legacy', 'tools/list'),
        ...bearer(forged),
      });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(
        new RegExp(
          `^Bearer error="invalid_token", error_description="[^"]+", scope="notes:read notes:write", resource_metadata="${METADATA_URL}"$`,
        ),
      );
      expect(answer.text).not.toContain(forged.slice(0, 40));
    },
  );

  it('lists the tools the token’s scopes allow, and runs them with the principal in the context', async () => {
    served = await serve(adapter);
    const reader = await token('notes:read');
    for (const era of ERAS) {
      const list = await post(served.url, listBody(era), {
        ...eraHeaders(era, 'tools/list'),
        ...bearer(reader),
      });
      expect(list.status).toBe(200);
      const names = list.messages!.at(-1).result.tools.map((tool: { name: string }) => tool.name);
      expect(names).toEqual(['notes_read', 'health_ping']);
      const call = await post(served.url, callBody(era, 'notes_read', {}), {
        ...eraHeaders(era, 'tools/call', 'notes_read'),
        ...bearer(reader),
      });
      expect(toolPayload(call)).toEqual({
        isError: false,
        json: { notes: ['a'], reader: CLIENT.clientId },
      });
    }
    // The application's guard and its context resolver saw the verified AuthInfo.
    expect(guardSaw.length).toBeGreaterThan(0);
    for (const seen of [...guardSaw, ...served.resolverSaw]) {
      expect(seen).toMatchObject({ clientId: CLIENT.clientId, scopes: ['notes:read'] });
    }
    // Events carry nothing of the principal.
    expect(served.events.length).toBe(2);
    expect(JSON.stringify(served.events)).not.toMatch(/robot|notes:read|eyJ/);
  });

  it.each(ERAS)(
    'challenges a %s-era call of a tool whose scope the token lacks with 403 insufficient_scope',
    async (era) => {
      served = await serve(adapter);
      const answer = await post(served.url, callBody(era, 'notes_write', { text: 'x' }, 7), {
        ...eraHeaders(era, 'tools/call', 'notes_write'),
        ...bearer(await token('notes:read')),
      });
      expect({
        status: answer.status,
        challenge: answer.headers['www-authenticate'],
        body: JSON.parse(answer.text),
      }).toEqual({
        status: 403,
        challenge:
          'Bearer error="insufficient_scope", error_description="This call needs the scopes notes:write.", ' +
          `scope="notes:read notes:write", resource_metadata="${METADATA_URL}"`,
        body: {
          jsonrpc: '2.0',
          id: 7,
          error: {
            code: -32003,
            message: 'Insufficient scope: this call needs the scopes notes:write.',
            data: { error: 'insufficient_scope', requiredScopes: ['notes:write'] },
          },
        },
      });
      expect(served.events).toEqual([]);
    },
  );

  it('refuses every request with 403 when the token lacks a scope required for any call', async () => {
    served = await serve(adapter, { requiredScopes: ['notes:write'] });
    const answer = await post(served.url, listBody('legacy'), {
      ...eraHeaders('legacy', 'tools/list'),
      ...bearer(await token('notes:read')),
    });
    expect({ status: answer.status, challenge: answer.headers['www-authenticate'] }).toEqual({
      status: 403,
      challenge: `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="notes:write", resource_metadata="${METADATA_URL}"`,
    });
  });
});

describe.each(ADAPTERS)('the sign-in within the application (%s)', (adapter) => {
  it("runs before the application's own guard on the route, which sees request.auth and may still refuse", async () => {
    served = await serve(
      adapter,
      {},
      { mcp: { mount: false }, controllers: [GuardedMcpController], providers: [KnownClients] },
    );
    routeGuardSaw.length = 0;
    const call = async (headers: Record<string, string>) =>
      post(served.url, callBody('legacy', 'notes_read', {}), {
        ...eraHeaders('legacy'),
        ...headers,
      });

    const outsider = await call(bearer(await token('notes:read', OUTSIDER)));
    expect({
      status: outsider.status,
      challenge: outsider.headers['www-authenticate'],
      body: JSON.parse(outsider.text),
    }).toEqual({
      status: 403,
      challenge: undefined,
      body: {
        statusCode: 403,
        message: 'This client may not use the notes endpoint.',
        error: 'Forbidden',
      },
    });
    expect(served.events).toEqual([]);

    const known = await call(bearer(await token('notes:read')));
    expect(toolPayload(known)).toEqual({
      isError: false,
      json: { notes: ['a'], reader: CLIENT.clientId },
    });
    expect(routeGuardSaw).toEqual([
      expect.objectContaining({ clientId: OUTSIDER.clientId, scopes: ['notes:read'] }),
      expect.objectContaining({ clientId: CLIENT.clientId, scopes: ['notes:read'] }),
    ]);

    // Without a token the sign-in answers: the guard is not reached.
    expect((await call({})).status).toBe(401);
    expect(routeGuardSaw).toHaveLength(2);
  });

  it('never logs the token, the subject or the client id: not with an unexpected failure, nor with a refusal', async () => {
    const logger = new RecordingLogger();
    served = await serve(adapter, {}, { tools: [balanceLedger], logger });
    const user = await userAccessToken(as.issuer, USER, {
      scope: 'notes:read',
      resource: RESOURCE,
    });
    const claims = decodeJwt(user);
    const clientId = String(claims.client_id);
    expect(claims).toMatchObject({ sub: USER.id, client_id: expect.any(String) });
    expect(clientId).not.toBe(USER.id);
    const call = (name: string, args: object, credential = user) =>
      post(served.url, callBody('legacy', name, args), {
        ...eraHeaders('legacy'),
        ...bearer(credential),
      });

    expect(toolPayload(await call('ledger_balance', {}))).toEqual({
      isError: true,
      json: { error: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false },
    });
    expect((await call('notes_write', { text: 'x' })).status).toBe(403);
    const [header, payload, signature] = user.split('.');
    const tampered = [header, payload, [...signature].reverse().join('')].join('.');
    expect((await call('notes_read', {}, tampered)).status).toBe(401);

    // The unexpected failure was logged, through Nest, once.
    expect(logger.texts.filter((line) => line.includes('failed unexpectedly'))).toEqual([
      expect.stringContaining('The ledger does not balance.'),
    ]);
    const secrets = [user, payload, signature, tampered, USER.id, clientId];
    expect(logger.texts.filter((line) => secrets.some((secret) => line.includes(secret)))).toEqual(
      [],
    );
  });

  it("leaves an Authorization header over Node's 16 KiB header limit to Node (431), and keeps serving", async () => {
    served = await serve(adapter);
    const body = callBody('legacy', 'health_ping', {});
    // The header alone is over the limit of a request's headers (`http.maxHeaderSize`).
    const oversized = `Bearer ${'a'.repeat(16 * 1024)}`;
    const refused = await raw(served.url, {
      method: 'POST',
      headers: { ...eraHeaders('legacy'), authorization: oversized },
      body,
    });
    expect(refused.status).toBe(431);
    const next = await post(served.url, body, {
      ...eraHeaders('legacy'),
      ...bearer(await token('notes:read')),
    });
    expect(toolPayload(next)).toEqual({ isError: false, json: { pong: true } });
  });
});

describe.each(ADAPTERS)('signing keys (%s)', (adapter) => {
  it('picks up a rotated key without a restart', async () => {
    served = await serve(adapter, { jwt: { jwksCooldownMs: 0 }, tokenCache: false });
    const call = async () =>
      post(served.url, callBody('legacy', 'health_ping', {}), {
        ...eraHeaders('legacy'),
        ...bearer(await token('notes:read')),
      });
    expect((await call()).status).toBe(200);
    await as.rotateKeys();
    expect((await call()).status).toBe(200);
  });

  it('looks an unknown key up again at most once per cooldown', async () => {
    served = await serve(adapter);
    const good = await token('notes:read');
    const headers = eraHeaders('legacy');
    expect(
      (
        await post(served.url, callBody('legacy', 'health_ping', {}), {
          ...headers,
          ...bearer(good),
        })
      ).status,
    ).toBe(200);
    const before = as.jwksRequests;
    for (let i = 0; i < 5; i++) {
      const forged = await forgeToken('unknown-kid', {
        issuer: as.issuer,
        audience: served.resource,
        signingKey: await as.signingKey(),
      });
      const answer = await post(served.url, callBody('legacy', 'health_ping', {}), {
        ...headers,
        ...bearer(forged),
      });
      expect(answer.status).toBe(401);
    }
    expect(as.jwksRequests - before).toBeLessThanOrEqual(1);
  });

  it('keeps using the keys it has while the key set cannot be fetched, and answers 401 without any key', async () => {
    served = await serve(adapter, {
      jwt: { jwksMaxAgeMs: 0, jwksCooldownMs: 0 },
      tokenCache: false,
    });
    const headers = eraHeaders('legacy');
    const good = await token('notes:read');
    const body = callBody('legacy', 'health_ping', {});
    expect((await post(served.url, body, { ...headers, ...bearer(good) })).status).toBe(200);
    as.setJwksAvailable(false);
    try {
      expect((await post(served.url, body, { ...headers, ...bearer(good) })).status).toBe(200);
      await apps.closeAll();
      // A fresh endpoint has no key yet: refused, promptly.
      served = await serve(adapter);
      const refused = await post(served.url, body, { ...headers, ...bearer(good) });
      expect(refused.status).toBe(401);
    } finally {
      as.setJwksAvailable(true);
    }
  });

  // `jwt.fetchTimeoutMs` (5 s by default) ends the wait; `raw` would give up after 5 s.
  it.each(['key set', 'metadata'] as const)(
    'answers 401 when the issuer’s %s never answers, once the fetch times out',
    async (what) => {
      const hanging = await hangingServer();
      try {
        let credential: string;
        if (what === 'key set') {
          served = await serve(adapter, {
            jwt: { jwksUri: `${hanging.origin}/jwks`, fetchTimeoutMs: 200 },
          });
          credential = await token('notes:read');
        } else {
          // The issuer is the hanging server: its metadata, which names the keys, never comes.
          served = await serve(adapter, { issuers: hanging.origin, jwt: { fetchTimeoutMs: 200 } });
          credential = await signToken({
            issuer: hanging.origin,
            audience: RESOURCE,
            signingKey: await as.signingKey(),
            scope: 'notes:read',
          });
        }
        const answer = await post(served.url, callBody('legacy', 'health_ping', {}), {
          ...eraHeaders('legacy'),
          ...bearer(credential),
        });
        expect({ status: answer.status, challenge: answer.headers['www-authenticate'] }).toEqual({
          status: 401,
          challenge: challenge('The access token is invalid.'),
        });
        expect(hanging.paths).toEqual(
          what === 'key set'
            ? ['/jwks']
            : ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
        );
      } finally {
        await hanging.close();
      }
    },
  );
});

describe('bootstrap', () => {
  it.each([
    [{ issuers: [] }, MCP_MESSAGES.noIssuer()],
    [
      { issuers: 'http://auth.example.com', resource: 'https://x/mcp' },
      MCP_MESSAGES.issuerRefused('http://auth.example.com', 'Issuer URL must be HTTPS'),
    ],
    [{ issuers: 'https://auth.example.com' }, MCP_MESSAGES.resourceChoice()],
    [
      {
        issuers: 'https://auth.example.com',
        resource: 'https://x/mcp',
        jwt: { algorithms: ['RS256', 'HS256'] },
      },
      MCP_MESSAGES.symmetricAlgorithms(['HS256']),
    ],
    [
      { issuers: 'https://auth.example.com', resource: 'https://x/mcp', scopesSupported: ['a b'] },
      MCP_MESSAGES.notAScope('a b'),
    ],
  ] as const)('refuses %j', async (auth, message) => {
    await expect(
      apps.init({
        imports: [
          ToolsModule.forRoot({
            registry: [ping],
            mcp: { auth: auth as unknown as McpAuthOptions },
          }),
        ],
      }),
    ).rejects.toMatchObject({ name: 'ToolsConfigurationError', message });
  });

  it('takes the sign-in from forRootAsync (mcp.auth), and refuses the route from its factory', async () => {
    const auth = { issuers: 'https://auth.example.com', resource: 'https://api.example.com/mcp' };
    const app = await apps.listen({
      imports: [
        ToolsModule.forRootAsync({ registry: [ping], useFactory: async () => ({ mcp: { auth } }) }),
      ],
    });
    expect(
      (await post(`${app.url}/mcp`, listBody('legacy'), eraHeaders('legacy', 'tools/list'))).status,
    ).toBe(401);
    await expect(
      apps.init({
        imports: [
          ToolsModule.forRootAsync({
            registry: [ping],
            useFactory: () => ({ mcp: { auth, path: '/mcp' } }) as ToolsModuleFactoryOptions,
          }),
        ],
      }),
    ).rejects.toThrow(new ToolsConfigurationError(MESSAGES.staticFromFactory(['mcp.path'])));
  });
});

describe.each(ADAPTERS)('a client that leaves while its token is verified (%s)', (adapter) => {
  it('leaves nothing pending: the application closes without waiting for it', async () => {
    let verifying!: () => void;
    const started = new Promise<void>((resolve) => (verifying = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = await apps.create(
      {
        imports: [
          ToolsModule.forRoot({
            registry: [ping],
            // A grace period no test waits for: an answer left pending would hang the close.
            shutdownGraceMs: 600_000,
            mcp: {
              auth: {
                issuers: 'https://auth.example.com',
                resource: RESOURCE,
                verifyAccessToken: async (token) => {
                  verifying();
                  await released;
                  return {
                    token,
                    clientId: 'c',
                    scopes: [],
                    expiresAt: 4_102_444_800,
                    resource: new URL(RESOURCE),
                  };
                },
              },
            },
          }),
        ],
      },
      adapter,
    );
    const sockets: Socket[] = [];
    app.getHttpServer().on('connection', (socket: Socket) => sockets.push(socket));
    await app.listen(0, '127.0.0.1');
    const url = new URL(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`);
    const body = callBody('legacy', 'health_ping', {});
    const client = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        ...eraHeaders('legacy'),
        authorization: 'Bearer opaque',
        'content-length': Buffer.byteLength(body),
      },
    });
    client.on('error', () => undefined);
    client.end(body);
    await started;
    // The client goes away while its token is being verified; the server sees it go.
    const gone = new Promise((resolve) => sockets[0].once('close', resolve));
    client.destroy();
    await gone;
    release();
    await app.close();
  });
});
