/**
 * The help desk sample with MCP sign-in through OAuth (`npm run sample:oauth`), booted in-process
 * as `sample/main-oauth.ts` boots it, both servers on free ports: client credentials tokens list
 * and call the tools their scopes allow, a token without the write scope is challenged to step up
 * before anything runs, a user signed in in the browser acts in their own tenant, and the REST
 * routes keep their API keys.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import { SERVICE_CLIENTS, SIGN_IN_USERS } from '../../sample/oauth/accounts.js';
import { startOAuthSample, type OAuthSample } from '../../sample/oauth/oauth-sample.js';
import { signInAsBrowser } from '../fixtures/browser-sign-in.js';
import {
  callBody,
  eraHeaders,
  ERAS,
  finalMessage,
  listBody,
  post,
  raw,
  toolPayload,
} from '../fixtures/mcp-http.js';

const [bot] = SERVICE_CLIENTS;
const [alice] = SEEDED_USERS;
const READ_TOOLS = [
  'helpdesk_export_tickets',
  'helpdesk_get_ticket',
  'helpdesk_list_tickets',
  'helpdesk_search_articles',
  'session_whoami',
];
const WRITE_TOOLS = [
  'helpdesk_add_comment',
  'helpdesk_assign_ticket',
  'helpdesk_close_ticket',
  'helpdesk_create_ticket',
  'helpdesk_update_ticket',
];

let sample: OAuthSample;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'helpdesk-oauth-'));
  sample = await startOAuthSample({
    databaseFile: join(dir, 'helpdesk.db'),
    port: 0,
    authPort: 0,
    logger: false,
  });
});
afterAll(async () => {
  await sample?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client credentials access token of the seeded service client, for the MCP endpoint. */
async function token(scope?: string): Promise<string> {
  const answer = await sample.authorizationServer.clientCredentialsToken(bot, {
    resource: sample.mcpUrl,
    ...(scope !== undefined && { scope }),
  });
  return answer.access_token;
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

async function listed(era: (typeof ERAS)[number], accessToken: string): Promise<string[]> {
  const answer = await post(sample.mcpUrl, listBody(era), {
    ...eraHeaders(era, 'tools/list'),
    ...bearer(accessToken),
  });
  expect(answer.status).toBe(200);
  return (finalMessage(answer).result.tools as { name: string }[]).map((tool) => tool.name).sort();
}

function call(era: (typeof ERAS)[number], accessToken: string, name: string, args: unknown = {}) {
  return post(sample.mcpUrl, callBody(era, name, args), {
    ...eraHeaders(era, 'tools/call', name),
    ...bearer(accessToken),
  });
}

describe('the help desk sample with OAuth sign-in', () => {
  it('names its authorization server in its metadata and challenges a request without a token', async () => {
    const metadataUrl = `${sample.url}/.well-known/oauth-protected-resource/mcp`;
    const document = await raw(metadataUrl, { method: 'GET' });
    expect(JSON.parse(document.text)).toEqual({
      resource: sample.mcpUrl,
      authorization_servers: [sample.authorizationServer.issuer],
      scopes_supported: ['tickets:read', 'tickets:write'],
      resource_name: 'Help desk sample',
    });
    const anonymous = await post(sample.mcpUrl, listBody('legacy'), eraHeaders('legacy'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      `Bearer scope="tickets:read tickets:write", resource_metadata="${metadataUrl}"`,
    );
  });

  it.each(ERAS)(
    'lists and runs for a service client the tools its scopes allow, in its tenant (%s)',
    async (era) => {
      const reader = await token('tickets:read');
      expect(await listed(era, reader)).toEqual(READ_TOOLS);
      expect(await listed(era, await token())).toEqual(['session_whoami']);
      expect(await listed(era, await token('tickets:read tickets:write'))).toEqual(
        [...READ_TOOLS, ...WRITE_TOOLS].sort(),
      );

      const tickets = toolPayload(await call(era, reader, 'helpdesk_list_tickets'));
      expect(tickets.isError).toBe(false);
      expect(tickets.json.tickets.map((ticket: { id: string }) => ticket.id).sort()).toEqual(
        expect.arrayContaining(['T-1001', 'T-1002']),
      );
      expect(JSON.stringify(tickets.json)).not.toContain('T-2001');
      const who = toolPayload(await call(era, reader, 'session_whoami'));
      expect(who.json).toMatchObject({ tenantId: bot.tenantId, userId: bot.clientId });
    },
  );

  it.each(ERAS)(
    'answers a write call with only tickets:read 403 insufficient_scope, before it runs (%s)',
    async (era) => {
      const reader = await token('tickets:read');
      const title = `Step up ${era}`;
      const refused = await call(era, reader, 'helpdesk_create_ticket', {
        title,
        body: 'x',
        priority: 'normal',
      });
      expect(refused.status).toBe(403);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_scope", error_description="This call needs the scopes ' +
          'tickets:read tickets:write.", scope="tickets:read tickets:write", ' +
          `resource_metadata="${sample.url}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(finalMessage(refused)).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32003,
          message: 'Insufficient scope: this call needs the scopes tickets:read tickets:write.',
          data: { error: 'insufficient_scope', requiredScopes: ['tickets:read', 'tickets:write'] },
        },
      });

      // Stepped up, the same call runs, as the service client.
      const writer = await token('tickets:read tickets:write');
      const created = toolPayload(
        await call(era, writer, 'helpdesk_create_ticket', { title, body: 'x', priority: 'low' }),
      );
      expect(created).toMatchObject({ isError: false, json: { title, createdBy: bot.clientId } });
      const titles = toolPayload(await call(era, reader, 'helpdesk_list_tickets', { limit: 100 }))
        .json.tickets.map((ticket: { title: string }) => ticket.title)
        .filter((each: string) => each === title);
      expect(titles).toEqual([title]);
    },
  );

  it('lets a user signed in in the browser (dynamic registration, PKCE) act in their own tenant', async () => {
    const gina = SIGN_IN_USERS.find((user) => user.id === 'gina')!;
    const provider = new BrowserProvider(gina);
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(sample.mcpUrl), { authProvider: provider });

    // The first attempt is answered 401: the SDK finds the authorization server through the
    // endpoint's metadata, registers, and sends the user to sign in for the endpoint.
    const first = new Client({ name: 'oauth-sample-test', version: '1.0.0' });
    const attempt = transport();
    await expect(first.connect(attempt)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(sample.mcpUrl);
    await attempt.finishAuth(provider.callback!.searchParams.get('code')!);
    await first.close();

    const client = new Client({ name: 'oauth-sample-test', version: '1.0.0' });
    await client.connect(transport());
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      [...READ_TOOLS, ...WRITE_TOOLS].sort(),
    );
    const who = await client.callTool({ name: 'session_whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ tenantId: 'globex', userId: 'gina' });
    const mine = await client.callTool({ name: 'helpdesk_list_tickets', arguments: {} });
    expect(
      (mine.structuredContent as { tickets: { id: string }[] }).tickets.map((t) => t.id),
    ).toEqual(['T-2001']);
    await client.close();
  });

  it('keeps API keys on the REST routes, and refuses an API key on the MCP endpoint', async () => {
    const rest = await fetch(`${sample.url}/api/tickets/T-1001`, { headers: bearer(alice.apiKey) });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({ id: 'T-1001' });
    const withToken = await fetch(`${sample.url}/api/tickets/T-1001`, {
      headers: bearer(await token('tickets:read')),
    });
    expect(withToken.status).toBe(401);
    const apiKeyOnMcp = await post(sample.mcpUrl, listBody('legacy'), {
      ...eraHeaders('legacy', 'tools/list'),
      ...bearer(alice.apiKey),
    });
    expect(apiKeyOnMcp.status).toBe(401);
    expect(apiKeyOnMcp.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});

/**
 * What an MCP client such as the Inspector does for a user: it registers itself (a public
 * client), and the user signs in and consents in the browser (scripted here).
 */
class BrowserProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  callback?: URL;
  #information?: OAuthClientInformationMixed;
  #tokens?: OAuthTokens;
  #verifier = '';

  constructor(private readonly user: { id: string; password: string }) {}

  get redirectUrl() {
    return 'http://127.0.0.1:9/oauth/callback';
  }

  get clientMetadata() {
    return {
      client_name: 'Help desk OAuth test',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.#information;
  }

  saveClientInformation(information: OAuthClientInformationMixed) {
    this.#information = information;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    this.callback = await signInAsBrowser(url, this.user);
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    return this.#verifier;
  }
}
