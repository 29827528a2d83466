import 'reflect-metadata';
import { afterEach, beforeAll, afterAll, describe, expect, it } from '@jest/globals';
import {
  Module,
  type INestApplication,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import {
  ToolInvoker,
  ToolRequestMiddleware,
  ToolsModule,
  defineToolRegistry,
  type ToolResult,
} from '../../lib/index.js';
import { ADAPTERS, TestApps, getJson } from '../fixtures/apps.js';
import { TenancyModule, TenantTools, tenantFromRequest, type WhoAmI } from '../fixtures/tenancy.js';

const registry = defineToolRegistry({ defaults: [TenantTools] });
const appModule = {
  imports: [TenancyModule, ToolsModule.forRoot({ registry, context: tenantFromRequest })],
};

describe.each(ADAPTERS)('request context (%s)', (adapter) => {
  const apps = new TestApps();
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await apps.listen(appModule, adapter));
  });
  afterAll(() => apps.closeAll());

  const whoami = (query: string, headers: Record<string, string> = {}) =>
    getJson<ToolResult<WhoAmI>>(`${url}/tenancy/whoami${query}`, headers);

  it('gives a tool called by a controller the context resolved from the request headers', async () => {
    const result = await whoami('?nonce=n1', { 'x-tenant-id': 'acme' });
    expect(result).toEqual({
      ok: true,
      data: { tenantId: 'acme', userId: null, nonce: 'n1', requestTenant: 'acme' },
    });
  });

  it('gives the same context to a tool called by a route whose JSON body was read first', async () => {
    const response = await fetch(`${url}/tenancy/whoami`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
      body: JSON.stringify({ nonce: 'posted' }),
    });
    expect(await response.json()).toEqual({
      ok: true,
      data: { tenantId: 'acme', userId: null, nonce: 'posted', requestTenant: 'acme' },
    });
  });

  it('fails context validation when the request lacks the header', async () => {
    const result = await whoami('');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('VALIDATION_ERROR');
    expect(result.error.details?.target).toBe('context');
    expect(result.error.details?.issues).toEqual([expect.objectContaining({ path: 'tenantId' })]);
  });

  it('merges the explicit context of a call over the resolved one', async () => {
    const added = await whoami('?ctxUser=explicit-user', { 'x-tenant-id': 'acme' });
    expect(added).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'acme', userId: 'explicit-user' }),
    });
    const overridden = await whoami('?ctxTenant=explicit-tenant', { 'x-tenant-id': 'acme' });
    expect(overridden).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'explicit-tenant', requestTenant: 'acme' }),
    });
    // The explicit context also fills in what the request lacks.
    const filled = await whoami('?ctxTenant=explicit-tenant');
    expect(filled).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'explicit-tenant', requestTenant: null }),
    });
  });

  it('uses only the explicit context outside a request', async () => {
    const tools = app.get(ToolInvoker);
    const result = await tools.invoke(
      'tenancy_whoami',
      {},
      { transport: 'AGENT', context: { tenantId: 'cron', userId: 'system' } },
    );
    expect(result).toEqual({
      ok: true,
      data: { tenantId: 'cron', userId: 'system', nonce: null, requestTenant: null },
    });
    const bare = await tools.invoke('tenancy_whoami', {}, { transport: 'AGENT' });
    expect(bare.ok).toBe(false);
    if (!bare.ok) expect(bare.error.details?.target).toBe('context');
  });

  it('passes the user a route guard set on the request to the context resolver', async () => {
    const result = await getJson<ToolResult<WhoAmI>>(`${url}/tenancy/me`, {
      'x-tenant-id': 'acme',
      'x-user': 'alice',
    });
    expect(result).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'acme', userId: 'alice' }),
    });
    // The guard really guards the route: the user comes from it, not from the header.
    const refused = await fetch(`${url}/tenancy/me`, { headers: { 'x-tenant-id': 'acme' } });
    expect(refused.status).toBe(403);
  });

  it('keeps 1,000 concurrent requests in their own contexts', async () => {
    const count = 1000;
    // Batches of 200 in flight at once: all at once overflows the listen backlog, and the
    // refused SYNs then cost seconds of retransmission without testing anything more.
    const batch = 200;
    const results: ToolResult<WhoAmI>[] = [];
    for (let start = 0; start < count; start += batch) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: batch }, (_, j) =>
            whoami(`?nonce=${start + j}`, { 'x-tenant-id': `tenant-${start + j}` }),
          ),
        )),
      );
    }
    const mismatched = results.filter(
      (result, i) =>
        !result.ok ||
        result.data.tenantId !== `tenant-${i}` ||
        result.data.requestTenant !== `tenant-${i}` ||
        result.data.nonce !== String(i),
    );
    expect(mismatched).toEqual([]);
    expect(results).toHaveLength(count);
  });
});

describe('request context without a running app', () => {
  const apps = new TestApps();
  afterEach(() => apps.closeAll());

  it('does not call the resolver outside a request', async () => {
    let resolved = 0;
    const app = await apps.init({
      imports: [
        TenancyModule,
        ToolsModule.forRoot({
          registry,
          context: (req: any) => {
            resolved++;
            return tenantFromRequest(req);
          },
        }),
      ],
    });
    const result = await app
      .get(ToolInvoker)
      .invoke('tenancy_whoami', {}, { transport: 'AGENT', context: { tenantId: 'queue' } });
    expect(result).toEqual({ ok: true, data: expect.objectContaining({ tenantId: 'queue' }) });
    expect(resolved).toBe(0);
  });
});

describe.each(ADAPTERS)('request context applied by the application (%s)', (adapter) => {
  const apps = new TestApps();
  let url: string;

  @Module({ imports: [TenancyModule] })
  class CapturedOnMe implements NestModule {
    configure(consumer: MiddlewareConsumer) {
      consumer.apply(ToolRequestMiddleware).forRoutes('tenancy/me');
    }
  }

  beforeAll(async () => {
    ({ url } = await apps.listen(
      {
        imports: [
          CapturedOnMe,
          ToolsModule.forRoot({ registry, context: tenantFromRequest, mountMiddleware: false }),
        ],
      },
      adapter,
    ));
  });
  afterAll(() => apps.closeAll());

  it('gives the resolver the request a guard decorated, where the application applied it', async () => {
    const result = await getJson<ToolResult<WhoAmI>>(`${url}/tenancy/me`, {
      'x-tenant-id': 'acme',
      'x-user': 'alice',
    });
    expect(result).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'acme', userId: 'alice', requestTenant: 'acme' }),
    });
  });

  it('captures nothing on the routes where it did not apply it', async () => {
    const result = await getJson<ToolResult<WhoAmI>>(`${url}/tenancy/whoami`, {
      'x-tenant-id': 'acme',
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.details?.target).toBe('context');
  });
});
