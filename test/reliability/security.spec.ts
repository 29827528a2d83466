import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import fc from 'fast-check';
import { ToolInvoker, ToolsModule } from '../../lib/index.js';
import { AppModule } from '../../sample/app/app.module.js';
import { SEEDED_USERS } from '../../sample/database/seed.js';
import {
  ApiKeyGuard,
  GlobalApiKeyGuard,
  SecureMcpController,
  mcpTools,
  newSeen,
  recordingHooks,
  restrictedGuard,
  tenantFromHeader,
} from '../mcp/support.js';
import {
  ADAPTERS,
  ERAS,
  callBody,
  eraHeaders,
  fcParams,
  finalMessage,
  isJsonRpcResponse,
  listBody,
  post,
  raw,
  toolPayload,
  type Era,
} from './support.js';
import { TestApps } from '../fixtures/apps.js';

/**
 * Security: Host and Origin checks (DNS rebinding) on both adapters; a Nest guard on the MCP
 * route that no method, path variant or query string gets around; tools hidden by `canList`
 * refused on call too; and error answers that never carry another tenant's data.
 */

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The hostname a Host or Origin value names, as a URL parser reads it; undefined if none. */
function hostnameOf(value: string, asOrigin: boolean): string | undefined {
  try {
    const hostname = new URL(asOrigin ? value : `http://${value}`).hostname;
    return hostname === '' ? undefined : hostname;
  } catch {
    return undefined;
  }
}

// Header-safe text: what Node's client accepts in a header value.
const headerSafe = (value: string) => value.replace(/[^\x20-\x7e]/g, '');

const port = fc.option(fc.integer({ min: 1, max: 70_000 }), { nil: undefined });
const withPort = (host: string, p: number | undefined) => (p === undefined ? host : `${host}:${p}`);

/** Host header values: foreign names, loopback names, look-alikes, and junk. */
const hostValue = fc.oneof(
  fc.tuple(fc.domain(), port).map(([host, p]) => withPort(host, p)),
  fc.tuple(fc.ipV4(), port).map(([host, p]) => withPort(host, p)),
  fc.tuple(fc.ipV6(), port).map(([host, p]) => withPort(`[${host}]`, p)),
  fc
    .tuple(fc.constantFrom(...LOOPBACK, 'LOCALHOST', 'LocalHost'), port)
    .map(([host, p]) => withPort(host, p)),
  fc
    .tuple(
      fc.constantFrom(
        'localhost.evil.com',
        'localhost.',
        '127.0.0.1.nip.io',
        'evil.com#@localhost',
        'localhost@evil.com',
        'evil@localhost',
        'localhost,evil.com',
        'localhost evil.com',
        '127.0.0.1:80@evil.com',
        '0.0.0.0',
        '[::ffff:127.0.0.1]',
        '[::]',
        'xn--localhost-',
        '[',
        '%',
        ':80',
      ),
      port,
    )
    .map(([host, p]) => withPort(host, p)),
  fc
    .string({ minLength: 1, maxLength: 30 })
    .map(headerSafe)
    .filter((s) => s.trim() !== ''),
);

/** Origin header values: foreign sites, loopback sites, look-alikes, opaque and junk origins. */
const originValue = fc.oneof(
  fc.webUrl().map((url) => new URL(url).origin),
  fc
    .tuple(fc.constantFrom('http', 'https'), fc.constantFrom(...LOOPBACK), port)
    .map(([scheme, host, p]) => `${scheme}://${withPort(host, p)}`),
  fc.constantFrom(
    'null',
    'http://localhost.evil.com',
    'http://localhost@evil.com',
    'http://evil.com#@localhost',
    'http://evil.com\\@localhost',
    'http://127.0.0.1.nip.io',
    'file://',
    'chrome-extension://abcdef',
    'http://',
    'localhost',
    'http://[::ffff:127.0.0.1]',
  ),
  fc
    .string({ minLength: 1, maxLength: 30 })
    .map(headerSafe)
    .filter((s) => s.trim() !== ''),
);

// ---------------------------------------------------------------------------------------------

describe.each(ADAPTERS)('Host and Origin checks (%s)', (adapter) => {
  const apps = new TestApps();
  const seen = newSeen();
  let mcpUrl: string;
  let customUrl: string;

  beforeAll(async () => {
    const registry = mcpTools(seen);
    ({ url: mcpUrl } = await apps.listen(
      { imports: [ToolsModule.forRoot({ registry })] },
      adapter,
    ));
    mcpUrl += '/mcp';
    ({ url: customUrl } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry,
            mcp: { allowedHosts: ['mcp.example.com'], allowedOrigins: ['app.example.com'] },
          }),
        ],
      },
      adapter,
    ));
    customUrl += '/mcp';
  });
  afterAll(() => apps.closeAll());

  const expectRefused = (status: number, messages: unknown[] | undefined, label: string) => {
    expect({ label, status }).toEqual({ label, status: 403 });
    expect(messages?.[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
  };

  it('serves a Host naming a loopback address only; refuses any other, malformed ones included', async () => {
    await fc.assert(
      fc.asyncProperty(hostValue, fc.constantFrom(...ERAS), async (host, era) => {
        const answer = await raw(mcpUrl, {
          headers: { ...eraHeaders(era, 'tools/call', 'math_square'), host },
          body: callBody(era, 'math_square', { n: 2 }),
        });
        const allowed = LOOPBACK.includes(hostnameOf(host, false) ?? '');
        if (allowed) {
          expect({ host, status: answer.status }).toEqual({ host, status: 200 });
        } else {
          expectRefused(answer.status, answer.messages, `Host ${host}`);
        }
      }),
      fcParams(150),
    );
  });

  it('serves no Origin or a loopback Origin only; refuses any other', async () => {
    await fc.assert(
      fc.asyncProperty(originValue, async (origin) => {
        const answer = await post(mcpUrl, listBody('legacy'), {
          ...eraHeaders('legacy', 'tools/list'),
          origin,
        });
        const allowed = LOOPBACK.includes(hostnameOf(origin, true) ?? '');
        if (allowed) expect({ origin, status: answer.status }).toEqual({ origin, status: 200 });
        else expectRefused(answer.status, answer.messages, `Origin ${origin}`);
      }),
      fcParams(100),
    );
    // No Origin at all (a non-browser client) is served.
    expect(
      (await post(mcpUrl, listBody('legacy'), eraHeaders('legacy', 'tools/list'))).status,
    ).toBe(200);
  });

  it('with allowedHosts and allowedOrigins set, serves those names only (loopback included)', async () => {
    for (const [host, origin, status] of [
      ['mcp.example.com', undefined, 200],
      ['mcp.example.com:8443', 'https://app.example.com', 200],
      ['MCP.EXAMPLE.COM', undefined, 200],
      ['mcp.example.com', 'https://evil.example', 403],
      ['mcp.example.com.evil.com', undefined, 403],
      ['localhost', undefined, 403],
      ['127.0.0.1', undefined, 403],
    ] as const) {
      const answer = await raw(customUrl, {
        headers: { ...eraHeaders('legacy', 'tools/list'), host, ...(origin && { origin }) },
        body: listBody('legacy'),
      });
      expect({ host, origin, status: answer.status }).toEqual({ host, origin, status });
    }
    // A refused request never reached a tool.
    expect(seen.runs).toEqual({});
  });
});

// ---------------------------------------------------------------------------------------------
// A Nest guard on the MCP route.

const GUARDED = [
  {
    name: '@UseGuards on an McpEndpoint subclass',
    path: '/secure/mcp',
    refusal: 401,
    module: (seen: ReturnType<typeof newSeen>) => ({
      imports: [
        ToolsModule.forRoot({
          registry: mcpTools(seen),
          hooks: [recordingHooks(seen)],
          mcp: { mount: false, path: '/secure/mcp' },
        }),
      ],
      controllers: [SecureMcpController],
      providers: [ApiKeyGuard],
    }),
  },
  {
    name: 'a global APP_GUARD on the mounted endpoint',
    path: '/mcp',
    refusal: 403,
    module: (seen: ReturnType<typeof newSeen>) => ({
      imports: [ToolsModule.forRoot({ registry: mcpTools(seen), hooks: [recordingHooks(seen)] })],
      providers: [{ provide: APP_GUARD, useClass: GlobalApiKeyGuard }],
    }),
  },
] as const;

/** Ways of spelling a path that a router might (or might not) take for the same route. */
const pathVariant = (path: string) =>
  fc.oneof(
    fc.constant(path),
    fc.constantFrom(`${path}/`, `${path}//`, `/${path}`, `${path}/.`, `${path}/..${path}`),
    fc.constantFrom(path.toUpperCase(), path.replace(/mcp$/, 'MCP'), path.replace(/mcp$/, 'Mcp')),
    fc.constantFrom(
      path.replace(/mcp$/, '%6dcp'),
      path.replace(/mcp$/, '%6D%63%70'),
      path.replace(/\/mcp$/, '%2Fmcp').replace(/^(?!\/)/, '/'),
      `${path}%2F`,
      `${path}%20`,
      `${path}%00`,
      `${path};jsessionid=1`,
      `${path}/index`,
      path.replace(/\/mcp$/, '/./mcp'),
      path.replace(/\/mcp$/, '/x/../mcp'),
      `${path}#fragment`,
    ),
  );

const queryString = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?x-api-key=sesame',
    '?api_key=sesame&x-api-key=sesame',
    '?__proto__[x-api-key]=sesame',
    '?sessionId=1',
    '?',
    '?&&',
  ),
  fc
    .dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 })
    .map((params) => `?${new URLSearchParams(params).toString()}`),
);

const BYPASS_HEADERS = fc.constantFrom<Record<string, string>>(
  {},
  { 'x-api-key': 'SESAME' },
  { 'x-api-key': 'sesam' },
  { 'x-api-key': 'sesamex' },
  { 'X-Api-Key-': 'sesame' },
  { 'x-http-method-override': 'GET' },
  { 'x-original-url': '/health', 'x-rewrite-url': '/health' },
  { 'x-forwarded-host': 'localhost', 'x-forwarded-for': '127.0.0.1' },
);

describe.each(ADAPTERS)('a guard on the MCP route (%s)', (adapter) => {
  describe.each(GUARDED)('$name', (variant) => {
    const apps = new TestApps();
    const seen = newSeen();
    let base: string;

    beforeAll(async () => {
      ({ url: base } = await apps.listen(variant.module(seen), adapter));
    });
    afterAll(() => apps.closeAll());

    it('refuses every method, path variant, query string and header trick: the guard, or 404', async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'),
          pathVariant(variant.path),
          queryString,
          BYPASS_HEADERS,
          fc.constantFrom<Era>(...ERAS),
          async (method, path, query, extra, era) => {
            const hasBody = method !== 'GET' && method !== 'HEAD';
            const answer = await raw(base, {
              method,
              path: `${path}${query}`,
              headers: { ...eraHeaders(era, 'tools/call', 'tenancy_echo'), ...extra },
              ...(hasBody && { body: callBody(era, 'tenancy_echo', { text: 'in' }) }),
            });
            statuses.add(answer.status);
            const label = `${method} ${path}${query} ${JSON.stringify(extra)}`;
            expect({ label, refused: [variant.refusal, 404].includes(answer.status) }).toEqual({
              label,
              refused: true,
            });
            expect(answer.text).not.toContain('"result"');
            expect(answer.text).not.toContain('tenancy_echo');
          },
        ),
        fcParams(200),
      );
      // No tool ran for any of them.
      expect(seen.runs).toEqual({});
      expect(seen.after).toEqual([]);
      expect(statuses.has(variant.refusal)).toBe(true);
    });

    it('serves the same request with the key (the guard is the only thing in the way)', async () => {
      for (const era of ERAS) {
        const answer = await post(
          `${base}${variant.path}`,
          callBody(era, 'tenancy_echo', { text: 'in' }),
          {
            ...eraHeaders(era, 'tools/call', 'tenancy_echo'),
            'x-api-key': 'sesame',
          },
        );
        expect(toolPayload(answer)).toEqual({
          isError: false,
          json: { text: 'in', tenantId: 'anonymous' },
        });
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Tools hidden by canList are refused on call.

describe.each(ADAPTERS)('canList (%s)', (adapter) => {
  const apps = new TestApps();
  const seen = newSeen();
  let app: INestApplication;
  let mcpUrl: string;

  beforeAll(async () => {
    let url: string;
    ({ app, url } = await apps.listen(
      {
        imports: [
          ToolsModule.forRoot({
            registry: mcpTools(seen),
            context: tenantFromHeader,
            guards: [restrictedGuard],
          }),
        ],
      },
      adapter,
    ));
    mcpUrl = `${url}/mcp`;
  });
  afterAll(() => apps.closeAll());

  it.each(ERAS)(
    'hides tenancy_report from a restricted caller and refuses its call (%s era)',
    async (era) => {
      const restricted = { 'x-tenant-id': 'restricted' };
      const runs = seen.runs.tenancy_report ?? 0;
      // Listed directly, and through the SDK (a cursor).
      for (const params of [{}, { cursor: 'c' }]) {
        const body = listBody(era, 1, params);
        const hidden = await post(mcpUrl, body, {
          ...eraHeaders(era, 'tools/list'),
          ...restricted,
        });
        const names = (answer: typeof hidden) =>
          finalMessage(answer).result.tools.map((tool: { name: string }) => tool.name);
        expect(names(hidden)).not.toContain('tenancy_report');
        expect(names(hidden)).toContain('tenancy_echo');
        const visible = await post(mcpUrl, body, {
          ...eraHeaders(era, 'tools/list'),
          'x-tenant-id': 'acme',
        });
        expect(names(visible)).toContain('tenancy_report');
      }
      // Called directly, and through the SDK (a progress token).
      for (const meta of [{}, { progressToken: 'p' }]) {
        const refused = await post(mcpUrl, callBody(era, 'tenancy_report', {}, 2, meta), {
          ...eraHeaders(era, 'tools/call', 'tenancy_report'),
          ...restricted,
        });
        expect(toolPayload(refused)).toMatchObject({ isError: true, json: { error: 'FORBIDDEN' } });
      }
      expect(seen.runs.tenancy_report ?? 0).toBe(runs);
      // In-process too.
      const inProcess = await app
        .get(ToolInvoker)
        .invoke('tenancy_report', {}, { transport: 'MCP', context: { tenantId: 'restricted' } });
      expect(inProcess).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      expect(seen.runs.tenancy_report ?? 0).toBe(runs);
      // The same call for another tenant runs.
      const allowed = await post(mcpUrl, callBody(era, 'tenancy_report', {}), {
        ...eraHeaders(era, 'tools/call', 'tenancy_report'),
        'x-tenant-id': 'acme',
      });
      expect(toolPayload(allowed)).toEqual({ isError: false, json: { report: 'quarterly' } });
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Another tenant's data never appears in an error answer (the help desk sample).

const [alice, , gina] = SEEDED_USERS;
const TICKETS = { acme: ['T-1001', 'T-1002'], globex: ['T-2001'] } as const;
/** What each tenant's data contains; none of it may reach the other tenant. */
const PRIVATE = {
  acme: [
    'Cannot reset password',
    'reset email never arrives',
    'Invoice shows wrong VAT',
    'alice',
    'Alice',
    'Acme',
    'acme',
    'KB-1',
    'KB-2',
  ],
  globex: [
    'Export to CSV',
    'Exports over 10k',
    'gina',
    'Gina',
    'Globex',
    'globex',
    'KB-3',
    'Large CSV',
  ],
} as const;

describe('two tenants of the help desk sample', () => {
  const apps = new TestApps();
  const dir = mkdtempSync(join(tmpdir(), 'reliability-helpdesk-'));
  let url: string;

  beforeAll(async () => {
    ({ url } = await apps.listen(
      { imports: [AppModule.forRoot({ databaseFile: join(dir, 'helpdesk.db') })] },
      'express',
    ));
  });
  afterAll(async () => {
    await apps.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const callers = {
    acme: { key: alice.apiKey, tenant: 'acme', other: 'globex' },
    globex: { key: gina.apiKey, tenant: 'globex', other: 'acme' },
  } as const;

  const TOOLS = {
    helpdesk_get_ticket: (id: string) => ({ id }),
    helpdesk_update_ticket: (id: string) => ({ id, priority: 'high' }),
    helpdesk_assign_ticket: (id: string) => ({ id, assignee: 'someone' }),
    helpdesk_add_comment: (id: string) => ({ id, body: 'checked' }),
  } as const;

  it("a tenant asking for another tenant's records gets NOT_FOUND with none of their data", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<keyof typeof callers>('acme', 'globex'),
        fc.constantFrom(...(Object.keys(TOOLS) as Array<keyof typeof TOOLS>)),
        fc.constantFrom(...TICKETS.acme, ...TICKETS.globex),
        fc.constantFrom<Era | 'rest'>('legacy', 'modern', 'rest'),
        async (who, tool, id, surface) => {
          const caller = callers[who];
          const owner = (TICKETS.acme as readonly string[]).includes(id) ? 'acme' : 'globex';
          let failed: boolean;
          let code: string | undefined;
          let text: string;
          // REST only: the status of the answer, and the one expected (ToolErrorFilter answers
          // NOT_FOUND with 404; Nest answers a GET with 200 and a POST with 201).
          let status: number | undefined;
          let expected: { own: number; other: number } | undefined;
          if (surface === 'rest') {
            // The REST routes: read and triage.
            const triage = tool !== 'helpdesk_get_ticket';
            const answer = await raw(`${url}/api/tickets/${id}${triage ? '/triage' : ''}`, {
              method: triage ? 'POST' : 'GET',
              headers: { authorization: `Bearer ${caller.key}` },
            });
            status = answer.status;
            expected = { own: triage ? 201 : 200, other: 404 };
            failed = answer.status >= 400;
            code = answer.messages?.[0]?.error;
            text = answer.text;
          } else {
            const answer = await post(`${url}/mcp`, callBody(surface, tool, TOOLS[tool](id)), {
              ...eraHeaders(surface, 'tools/call', tool),
              authorization: `Bearer ${caller.key}`,
            });
            expect(answer.messages?.every(isJsonRpcResponse)).toBe(true);
            const result = finalMessage(answer).result;
            failed = result.isError === true;
            // A success of helpdesk_get_ticket is presented as text; a failure is the envelope.
            code = failed ? JSON.parse(result.content[0].text).error : undefined;
            text = answer.text;
          }
          const label = `${who} ${tool} ${id} ${surface}`;
          if (owner === caller.tenant) {
            expect({ label, failed, status }).toEqual({
              label,
              failed: false,
              status: expected?.own,
            });
          } else {
            expect({ label, failed, code, status }).toEqual({
              label,
              failed: true,
              code: 'NOT_FOUND',
              status: expected?.other,
            });
          }
          const leaked = PRIVATE[caller.other].filter((secret) => text.includes(secret));
          expect({ label, leaked }).toEqual({ label, leaked: [] });
        },
      ),
      fcParams(80),
    );
  });

  it("search and listings of one tenant never return the other's records", async () => {
    for (const [who, caller] of Object.entries(callers)) {
      for (const tool of ['helpdesk_list_tickets', 'helpdesk_search_articles'] as const) {
        const args =
          tool === 'helpdesk_search_articles' ? { query: 'csv export password vat invoice' } : {};
        const answer = await post(`${url}/mcp`, callBody('legacy', tool, args), {
          ...eraHeaders('legacy'),
          authorization: `Bearer ${caller.key}`,
        });
        expect(toolPayload(answer).isError).toBe(false);
        const leaked = PRIVATE[caller.other].filter((secret) => answer.text.includes(secret));
        expect({ who, tool, leaked }).toEqual({ who, tool, leaked: [] });
      }
    }
  });
});
