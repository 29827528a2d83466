import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ToolInvoker, ToolsModule, defineToolRegistry } from '../../lib/index.js';
import { ADAPTERS, TestApps, getJson } from '../fixtures/apps.js';
import { callBody, eraHeaders, post, toolPayload } from '../fixtures/mcp-http.js';
import {
  DependentTools,
  ProbedMcpModule,
  ProbedModule,
  ProbedTools,
  RequestScopedTools,
  RequestSerialGuard,
  ScopedModule,
  SingletonTools,
  created,
  mcpSeen,
  type ProbeReport,
} from '../fixtures/scoped.js';

const registry = defineToolRegistry({
  defaults: [RequestScopedTools, DependentTools, SingletonTools, ProbedTools],
});

describe.each(ADAPTERS)('tool class scopes (%s)', (adapter) => {
  const apps = new TestApps();
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await apps.listen(
      {
        imports: [ScopedModule, ProbedModule, ToolsModule.forRoot(registry)],
        providers: [{ provide: APP_GUARD, useClass: RequestSerialGuard }],
      },
      adapter,
    ));
  });
  afterAll(() => apps.closeAll());

  const twice = (tool: string, tenant: string) =>
    getJson<any[]>(`${url}/scoped/twice?tool=${tool}`, { 'x-tenant-id': tenant });

  // ScopedController is a singleton: Nest's router gives its requests no DI sub-tree, so the
  // first tool call of a request opens one, and later calls in that request reuse it.
  it('builds a request-scoped tool class once per request, with that request', async () => {
    const before = created.requestScoped;
    const [acme, globex] = await Promise.all([
      twice('request_scoped_whoami', 'acme'),
      twice('request_scoped_whoami', 'globex'),
    ]);
    expect(acme.map((r) => r.tenant)).toEqual(['acme', 'acme']);
    expect(globex.map((r) => r.tenant)).toEqual(['globex', 'globex']);
    expect(acme[1].instance).toBe(acme[0].instance);
    expect(globex[1].instance).toBe(globex[0].instance);
    expect(globex[0].instance).not.toBe(acme[0].instance);
    expect(created.requestScoped - before).toBe(2);
  });

  it('resolves a singleton tool class with a request-scoped dependency once per request', async () => {
    const before = { dependent: created.dependent, info: created.requestInfo };
    const [acme, globex] = await Promise.all([
      twice('dependent_whoami', 'acme'),
      twice('dependent_whoami', 'globex'),
    ]);
    expect(acme.map((r) => r.tenant)).toEqual(['acme', 'acme']);
    expect(globex.map((r) => r.tenant)).toEqual(['globex', 'globex']);
    expect(acme.map((r) => [r.instance, r.info])).toEqual(
      [acme[0], acme[0]].map((r) => [r.instance, r.info]),
    );
    expect(globex.map((r) => [r.instance, r.info])).toEqual(
      [globex[0], globex[0]].map((r) => [r.instance, r.info]),
    );
    expect(globex[0].instance).not.toBe(acme[0].instance);
    expect(globex[0].info).not.toBe(acme[0].info);
    expect(created.dependent - before.dependent).toBe(2);
    expect(created.requestInfo - before.info).toBe(2);
  });

  // ProbedController is request-scoped (through RequestProbe): the router resolves it in the
  // request's DI sub-tree, and a tool called while it handles the request must use the same one.
  it('resolves a request-scoped tool class in the DI sub-tree of the request being handled', async () => {
    const before = { probe: created.probe, probed: created.probed };
    const [acme, globex] = await Promise.all([
      getJson(`${url}/probed`, { 'x-tenant-id': 'acme' }),
      getJson(`${url}/probed`, { 'x-tenant-id': 'globex' }),
    ]);
    for (const [answer, tenant] of [
      [acme, 'acme'],
      [globex, 'globex'],
    ] as const) {
      const expected: ProbeReport = {
        instance: answer.tools[0].instance,
        // The very RequestProbe the controller got, built for the request the controller got.
        probe: answer.probe,
        tenant,
        request: answer.request,
        probeRequest: answer.request,
      };
      expect(answer.request).toEqual(expect.any(Number));
      expect(answer.tools).toEqual([expected, expected]);
    }
    expect(globex.probe).not.toBe(acme.probe);
    expect(globex.tools[0].instance).not.toBe(acme.tools[0].instance);
    expect(created.probe - before.probe).toBe(2);
    expect(created.probed - before.probed).toBe(2);
  });

  it('gives a request-scoped tool class called over MCP the HTTP request', async () => {
    const tenant = `mcp-${adapter}`;
    const answer = await post(`${url}/mcp`, callBody('legacy', 'probed_whoami', {}), {
      ...eraHeaders('legacy'),
      'x-tenant-id': tenant,
    });
    expect(answer.status).toBe(200);
    const { isError, json } = toolPayload(answer);
    // The request object Nest's router handed to the route's guard.
    const request = mcpSeen.requests.get(tenant);
    expect(request).toEqual(expect.any(Number));
    expect(isError).toBe(false);
    expect(json).toEqual({
      instance: expect.any(Number),
      probe: expect.any(Number),
      tenant,
      request,
      probeRequest: request,
    });
  });

  it('binds a singleton tool class once: one instance serves every call', async () => {
    const tools = app.get(ToolInvoker);
    const bootstrapped = created.singleton;
    const viaHttp = await Promise.all([
      twice('singleton_count', 'a'),
      twice('singleton_count', 'b'),
    ]);
    const inProcess = await tools.invokeOrThrow<{ instance: number; calls: number }>(
      'singleton_count',
      {},
      { transport: 'AGENT' },
    );
    const results = [...viaHttp.flat(), inProcess];
    expect(new Set(results.map((r) => r.instance)).size).toBe(1);
    expect(results[0].instance).toBe(app.get(SingletonTools).instance);
    expect(created.singleton).toBe(bootstrapped);
    // The only test calling it: five calls counted by the same instance.
    expect(results.map((r) => r.calls).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
  });

  it('resolves a request-scoped tool class in a fresh DI context per call outside a request', async () => {
    const tools = app.get(ToolInvoker);
    const first = await tools.invokeOrThrow<ProbeReport>(
      'probed_whoami',
      {},
      { transport: 'AGENT' },
    );
    const second = await tools.invokeOrThrow<ProbeReport>(
      'probed_whoami',
      {},
      { transport: 'AGENT' },
    );
    expect([first.tenant, second.tenant]).toEqual([null, null]);
    expect(second.instance).not.toBe(first.instance);
    expect(second.probe).not.toBe(first.probe);
  });

  it('builds a request-scoped tool class per call outside a request too, without a request', async () => {
    const tools = app.get(ToolInvoker);
    const first = await tools.invokeOrThrow<any>(
      'request_scoped_whoami',
      {},
      { transport: 'AGENT' },
    );
    const second = await tools.invokeOrThrow<any>(
      'request_scoped_whoami',
      {},
      { transport: 'AGENT' },
    );
    expect(first.tenant).toBeNull();
    expect(second.instance).not.toBe(first.instance);
  });
});

describe.each(ADAPTERS)('tool class scopes behind an McpEndpoint subclass (%s)', (adapter) => {
  const apps = new TestApps();
  let url: string;

  beforeAll(async () => {
    ({ url } = await apps.listen(
      {
        imports: [
          ProbedMcpModule,
          ToolsModule.forRoot({
            registry: [ProbedTools],
            mcp: { mount: false, path: '/probed/mcp' },
          }),
        ],
      },
      adapter,
    ));
  });
  afterAll(() => apps.closeAll());

  it('shares the request-scoped providers of the endpoint serving the MCP request', async () => {
    const tenants = [`own-${adapter}-acme`, `own-${adapter}-globex`];
    const answers = await Promise.all(
      tenants.map((tenant) =>
        post(`${url}/probed/mcp`, callBody('legacy', 'probed_whoami', {}), {
          ...eraHeaders('legacy'),
          'x-tenant-id': tenant,
        }),
      ),
    );
    const reports = answers.map((answer) => {
      expect(answer.status).toBe(200);
      const { isError, json } = toolPayload(answer);
      expect(isError).toBe(false);
      return json as ProbeReport;
    });
    tenants.forEach((tenant, i) => {
      // The RequestProbe the endpoint controller was built with for this very request.
      expect(mcpSeen.probes.get(tenant)).toEqual(expect.any(Number));
      expect(reports[i]).toEqual({
        instance: expect.any(Number),
        probe: mcpSeen.probes.get(tenant),
        tenant,
        request: reports[i].probeRequest,
        probeRequest: expect.any(Number),
      });
    });
    expect(reports[1].probe).not.toBe(reports[0].probe);
    expect(reports[1].instance).not.toBe(reports[0].instance);
  });
});
