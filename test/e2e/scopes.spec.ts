import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { ToolInvoker, ToolsModule, defineToolRegistry } from '../../lib/index.js';
import { ADAPTERS, TestApps, getJson } from '../fixtures/apps.js';
import {
  DependentTools,
  RequestScopedTools,
  ScopedModule,
  SingletonTools,
  created,
} from '../fixtures/scoped.js';

const registry = defineToolRegistry({
  defaults: [RequestScopedTools, DependentTools, SingletonTools],
});

describe.each(ADAPTERS)('tool class scopes (%s)', (adapter) => {
  const apps = new TestApps();
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await apps.listen(
      { imports: [ScopedModule, ToolsModule.forRoot(registry)] },
      adapter,
    ));
  });
  afterAll(() => apps.closeAll());

  const twice = (tool: string, tenant: string) =>
    getJson<any[]>(`${url}/scoped/twice?tool=${tool}`, { 'x-tenant-id': tenant });

  it('builds a request-scoped tool class afresh for every call, with the current request', async () => {
    const before = created.requestScoped;
    const [acme, globex] = await Promise.all([
      twice('request_scoped_whoami', 'acme'),
      twice('request_scoped_whoami', 'globex'),
    ]);
    expect(acme.map((r) => r.tenant)).toEqual(['acme', 'acme']);
    expect(globex.map((r) => r.tenant)).toEqual(['globex', 'globex']);
    const instances = [...acme, ...globex].map((r) => r.instance);
    expect(new Set(instances).size).toBe(4);
    expect(created.requestScoped - before).toBe(4);
  });

  it('resolves a singleton tool class with a request-scoped dependency per call', async () => {
    const before = { dependent: created.dependent, info: created.requestInfo };
    const [acme, globex] = await Promise.all([
      twice('dependent_whoami', 'acme'),
      twice('dependent_whoami', 'globex'),
    ]);
    expect(acme.map((r) => r.tenant)).toEqual(['acme', 'acme']);
    expect(globex.map((r) => r.tenant)).toEqual(['globex', 'globex']);
    expect(new Set([...acme, ...globex].map((r) => r.instance)).size).toBe(4);
    expect(new Set([...acme, ...globex].map((r) => r.info)).size).toBe(4);
    expect(created.dependent - before.dependent).toBe(4);
    expect(created.requestInfo - before.info).toBe(4);
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
