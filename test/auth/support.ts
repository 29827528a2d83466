/**
 * What test/auth/clients.spec.ts drives the official MCP clients with: a free port, the notes
 * tools, a fetch that records every exchange, a browser-backed OAuth client provider, and one
 * face over both client generations with their own OAuth support.
 */
import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { z } from 'zod';
import { defineRuntimeTool, type ToolPrincipal } from '../../lib/index.js';
import { signInAsBrowser } from '../fixtures/browser-sign-in.js';

/** A port of 127.0.0.1 that was free a moment ago (listened on, then closed). */
export { freePort } from '../../sample/ports.js';

// ---------------------------------------------------------------------------------------------
// Tools.

const Caller = z.object({
  subject: z.string().nullable(),
  clientId: z.string().nullable(),
  scopes: z.array(z.string()),
});

/** Who the handler saw calling: from `context.principal`, set by the endpoint from the token. */
function callerOf(context: Record<string, unknown> | undefined): z.input<typeof Caller> {
  const principal = context?.principal as ToolPrincipal | undefined;
  return {
    subject: principal?.subject ?? null,
    clientId: principal?.clientId ?? null,
    scopes: [...(principal?.scopes ?? [])],
  };
}

/** `health_ping` (no scopes), `notes_read` (`notes:read`) and `notes_write` (`notes:write`). */
export function notesTools() {
  const ping = defineRuntimeTool({
    description: 'Say the service is up',
    identity: { serviceName: 'health', action: 'ping', method: 'GET' },
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    handler: () => ({ ok: true }),
  });
  const read = defineRuntimeTool({
    description: 'Read the notes',
    identity: { serviceName: 'notes', action: 'read', method: 'GET' },
    input: z.object({}),
    output: z.object({ notes: z.array(z.string()), caller: Caller }),
    scopes: ['notes:read'],
    handler: ({ context }) => ({ notes: ['first note'], caller: callerOf(context) }),
  });
  const write = defineRuntimeTool({
    description: 'Write a note',
    identity: { serviceName: 'notes', action: 'write', method: 'POST' },
    input: z.object({ text: z.string().min(1) }),
    output: z.object({ saved: z.string(), caller: Caller }),
    scopes: ['notes:write'],
    handler: ({ input, context }) => ({ saved: input.text, caller: callerOf(context) }),
  });
  return [ping, read, write];
}

// ---------------------------------------------------------------------------------------------
// Recording every HTTP exchange of a client.

/** One HTTP exchange as the client made it. */
export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** The request body, when it was form-encoded (a token or registration request's). */
  readonly form?: Record<string, string>;
  readonly wwwAuthenticate?: string;
}

/** A `fetch` that records every exchange in `log`; it never reads the response body. */
export function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const contentType = new Headers(init?.headers).get('content-type');
    const response = await fetch(input, init);
    const body = init?.body;
    let form: Record<string, string> | undefined;
    if (body instanceof URLSearchParams) form = Object.fromEntries(body);
    else if (
      typeof body === 'string' &&
      contentType?.startsWith('application/x-www-form-urlencoded')
    ) {
      form = Object.fromEntries(new URLSearchParams(body));
    }
    const challenge = response.headers.get('www-authenticate');
    log.push({
      method,
      url,
      status: response.status,
      ...(form && { form }),
      ...(challenge !== null && { wwwAuthenticate: challenge }),
    });
    return response;
  };
}

/** `METHOD AS|RS/path status` of each exchange, the origin replaced by `AS` or `RS`. */
export function trail(log: readonly Exchange[], origins: { as: string; rs: string }): string[] {
  return log.map((exchange) => {
    const url = new URL(exchange.url);
    const host = url.origin === origins.as ? 'AS' : url.origin === origins.rs ? 'RS' : url.origin;
    return `${exchange.method} ${host}${url.pathname} ${exchange.status}`;
  });
}

// ---------------------------------------------------------------------------------------------
// An interactive OAuth client whose "browser" is signInAsBrowser.

/** A client's redirect URI: on loopback, never fetched. */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A form POST (a token request, say): its status and JSON body. */
export async function postForm(url: string, form: Record<string, string>, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/**
 * Registers a public client (no secret, PKCE) with `issuer`, redirecting to
 * {@link REDIRECT_URI}, allowed codes and refresh tokens; resolves to its client id. Throws when
 * the registration is refused, or when a secret is handed to a public client.
 */
export async function registerPublicClient(issuer: string): Promise<string> {
  const response = await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'toolwright test client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const client = (await response.json()) as { client_id: string; client_secret?: string };
  if (response.status !== 201) {
    throw new Error(`The registration answered ${response.status}: ${JSON.stringify(client)}`);
  }
  if (client.client_secret !== undefined) throw new Error('A public client was given a secret.');
  return client.client_id;
}

/**
 * An authorization request of `clientId` to `issuer` with PKCE S256, its verifier and state;
 * `params` adds to or replaces its parameters (`undefined` leaves one out).
 */
export function authorizationRequest(
  issuer: string,
  clientId: string,
  params: Record<string, string | undefined>,
) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('base64url');
  const url = new URL('/auth', issuer);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return { url, verifier, state };
}

/**
 * `user`'s access token for `resource` with `scope`, as a browser-based client gets one: it
 * registers itself (a public client), signs the user in with PKCE through the scripted browser,
 * and redeems the code.
 */
export async function userAccessToken(
  issuer: string,
  user: { id: string; password: string },
  { scope, resource }: { scope: string; resource: string },
): Promise<string> {
  const clientId = await registerPublicClient(issuer);
  const { url, verifier } = authorizationRequest(issuer, clientId, { scope, resource });
  const code = (await signInAsBrowser(url, user)).searchParams.get('code');
  if (code === null) throw new Error('The sign-in gave no code.');
  const { status, body } = await postForm(`${issuer}/token`, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    resource,
  });
  if (typeof body.access_token !== 'string') {
    throw new Error(`The token endpoint answered ${status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

/**
 * An `OAuthClientProvider` of either SDK generation for a user-facing client: it registers
 * itself dynamically (a public client, PKCE), and `redirectToAuthorization` signs `user` in with
 * the scripted browser and keeps the redirect back to the client (`?code=&state=&iss=`).
 */
export class BrowserClientProvider {
  /** Every authorization URL the SDK sent the user to. */
  readonly authorizationUrls: URL[] = [];
  /** Every redirect back to the client, in order. */
  readonly callbacks: URL[] = [];
  information: any;
  saved: any;
  #verifier = '';
  #discovery: any;

  constructor(
    private readonly user: { id: string; password: string },
    private readonly grantTypes: readonly string[] = ['authorization_code'],
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: 'toolwright auth spec',
      redirect_uris: [REDIRECT_URI],
      grant_types: [...this.grantTypes],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.information;
  }

  saveClientInformation(information: any) {
    this.information = information;
  }

  tokens() {
    return this.saved;
  }

  saveTokens(tokens: any) {
    this.saved = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.callbacks.push(await signInAsBrowser(url, this.user));
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    return this.#verifier;
  }

  saveDiscoveryState(state: any) {
    this.#discovery = state;
  }

  discoveryState() {
    return this.#discovery;
  }
}

// ---------------------------------------------------------------------------------------------
// Both client generations, with their own OAuth support.

export const GENERATIONS = ['v1 (2025)', 'v2 (2026-07-28)'] as const;
export type Generation = (typeof GENERATIONS)[number];

/**
 * A client of one generation on one server URL and one OAuth provider. `connect` opens a fresh
 * client and transport each time (as after a redirect); `finishAuth` hands the redirect back to
 * the transport of the last attempt.
 */
export class OAuthSession {
  /** Every exchange of every client of the session. */
  readonly exchanges: Exchange[] = [];
  #client: ClientV1 | ClientV2 | undefined;
  #transport: TransportV1 | TransportV2 | undefined;
  readonly #opened: Array<ClientV1 | ClientV2> = [];

  constructor(
    readonly generation: Generation,
    private readonly url: string,
    private readonly provider: unknown,
    private readonly transportOptions: Record<string, unknown> = {},
  ) {}

  /**
   * The exchanges, but for the v1 client's standalone SSE `GET` of the MCP URL: it is sent
   * without waiting after the handshake and lands whenever it does (answered 405).
   */
  get log(): Exchange[] {
    return this.exchanges.filter(
      (exchange) => exchange.method !== 'GET' || exchange.url !== this.url,
    );
  }

  async connect(): Promise<void> {
    const info = { name: 'toolwright-auth-spec', version: '1.0.0' };
    const fetch = recordingFetch(this.exchanges);
    const options = { authProvider: this.provider as any, fetch, ...this.transportOptions };
    if (this.generation === 'v1 (2025)') {
      const client = new ClientV1(info);
      const transport = new TransportV1(new URL(this.url), options);
      this.#opened.push(client);
      [this.#client, this.#transport] = [client, transport];
      await client.connect(transport);
    } else {
      const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      const transport = new TransportV2(new URL(this.url), options);
      this.#opened.push(client);
      [this.#client, this.#transport] = [client, transport];
      await client.connect(transport);
    }
  }

  /** Redeems the code of the redirect back to the client, on the last transport. */
  async finishAuth(callback: URL): Promise<void> {
    const code = callback.searchParams.get('code');
    if (code === null) throw new Error(`no code in ${callback.href}`);
    if (this.#transport instanceof TransportV1) await this.#transport.finishAuth(code);
    else await this.#transport!.finishAuth(callback.searchParams);
  }

  async toolNames(): Promise<string[]> {
    return (await this.#client!.listTools()).tools.map((tool) => tool.name);
  }

  async callTool(name: string, args: Record<string, unknown> = {}): Promise<any> {
    return this.#client!.callTool({ name, arguments: args });
  }

  /** Closes every client this session opened. */
  async close(): Promise<void> {
    const clients = this.#opened.splice(0);
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }
}
