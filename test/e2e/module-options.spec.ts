import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger, Module } from '@nestjs/common';
import {
  ToolInvoker,
  ToolsConfigurationError,
  ToolsModule,
  defineToolRegistry,
  type ToolResult,
} from '../../lib/index.js';
import type { ToolsModuleFactoryOptions } from '../../lib/nest/interfaces/tools-module-options.interface.js';
import { MCP_OPTIONS } from '../../lib/nest/mcp/mcp.constants.js';
import type { ResolvedMcpOptions } from '../../lib/nest/mcp/mcp-options.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import { ADAPTERS, TestApps, getJson } from '../fixtures/apps.js';
import {
  CatalogModule,
  CatalogTools,
  ReportsModule,
  ReportsService,
  pingTool,
} from '../fixtures/catalog.js';
import { ToolsConfig, ToolsConfigModule, ToolsOptionsFactory } from '../fixtures/config.js';
import { TenancyModule, TenantTools, type WhoAmI } from '../fixtures/tenancy.js';

const apps = new TestApps();
afterEach(async () => {
  jest.restoreAllMocks();
  await apps.closeAll();
});

/** The lines `logCalls` wrote for a tool, through any Nest Logger. */
function spyCallLines(tool: string) {
  const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  return () =>
    spy.mock.calls.map(([message]) => String(message)).filter((line) => line.startsWith(tool));
}

describe.each(ADAPTERS)('ToolsModule.forRootAsync (%s)', (adapter) => {
  const registry = defineToolRegistry({ defaults: [TenantTools] });

  it('useFactory with inject: the factory-provided resolver and logCalls take effect', async () => {
    const lines = spyCallLines('tenancy_whoami');
    const { url } = await apps.listen(
      {
        imports: [
          TenancyModule,
          ToolsModule.forRootAsync({
            registry,
            imports: [ToolsConfigModule],
            inject: [ToolsConfig],
            useFactory: (config: ToolsConfig) => ({
              logCalls: config.logCalls,
              context: (req: any) => ({ tenantId: req.headers[config.tenantHeader] }),
            }),
          }),
        ],
      },
      adapter,
    );
    const result = await getJson<ToolResult<WhoAmI>>(`${url}/tenancy/whoami`, {
      'x-org': 'initech',
      'x-tenant-id': 'not-this-one',
    });
    expect(result).toEqual({ ok: true, data: expect.objectContaining({ tenantId: 'initech' }) });
    expect(lines()).toEqual([
      expect.stringMatching(/^tenancy_whoami AGENT\/internal ok \d+\.\dms$/),
    ]);
  });

  it('useClass: the options class, built with its dependencies, takes effect', async () => {
    const lines = spyCallLines('tenancy_whoami');
    const { url } = await apps.listen(
      {
        imports: [
          TenancyModule,
          ToolsModule.forRootAsync({
            registry,
            imports: [ToolsConfigModule],
            useClass: ToolsOptionsFactory,
          }),
        ],
      },
      adapter,
    );
    const result = await getJson<ToolResult<WhoAmI>>(`${url}/tenancy/whoami`, {
      'x-org': 'hooli',
    });
    // The resolver is a class the options name: built by DI with ToolsConfig injected.
    expect(result).toEqual({
      ok: true,
      data: expect.objectContaining({ tenantId: 'hooli', userId: 'from-resolver-class' }),
    });
    expect(lines()).toHaveLength(1);
  });
});

describe('ToolsModule.forRoot', () => {
  const builder = () => defineToolRegistry({ defaults: [CatalogTools, pingTool] });
  const names = ['catalog_get', 'catalog_list', 'catalog_remove', 'health_ping'];

  it.each([
    ['a registry builder', () => ToolsModule.forRoot(builder())],
    ['a plain array of tools and classes', () => ToolsModule.forRoot([CatalogTools, pingTool])],
    ['the build() output of a registry', () => ToolsModule.forRoot(builder().build())],
    ['the options object', () => ToolsModule.forRoot({ registry: builder() })],
  ])('mounts %s', async (_label, toolsModule) => {
    const app = await apps.init({ imports: [CatalogModule, toolsModule()] });
    const tools = app.get(ToolInvoker);
    expect(tools.names('AGENT')).toEqual(names);
    // The class tool is bound to the container's instance, with its injected service.
    expect(await tools.invoke('catalog_list', {}, { transport: 'AGENT' })).toEqual({
      ok: true,
      data: {
        products: [
          { id: 'p1', title: 'Anvil' },
          { id: 'p2', title: 'Rocket skates' },
        ],
      },
    });
    expect(await tools.invoke('health_ping', {}, { transport: 'CLI' })).toEqual({
      ok: true,
      data: { pong: true },
    });
  });

  it('is global by default: a module that does not import it can inject ToolInvoker', async () => {
    const app = await apps.init({
      imports: [CatalogModule, ReportsModule, ToolsModule.forRoot([CatalogTools])],
    });
    expect(await app.get(ReportsService).count()).toBe(2);
  });

  it('with isGlobal: false, ToolInvoker cannot be injected where ToolsModule is not imported', async () => {
    await expect(
      apps.create({
        imports: [
          CatalogModule,
          ReportsModule,
          ToolsModule.forRoot({ registry: [CatalogTools], isGlobal: false }),
        ],
      }),
    ).rejects.toThrow(
      /Nest can't resolve dependencies of the ReportsService \(\?\)[\s\S]*ToolInvoker/,
    );
  });

  it('with isGlobal: false, the importing module still injects ToolInvoker', async () => {
    @Module({
      imports: [CatalogModule, ToolsModule.forRoot({ registry: [CatalogTools], isGlobal: false })],
      providers: [ReportsService],
      exports: [ReportsService],
    })
    class LocalReportsModule {}
    const app = await apps.init({ imports: [LocalReportsModule] });
    expect(await app.get(ReportsService).count()).toBe(2);
  });
});

describe('ToolsModule.forRootAsync and the options given directly', () => {
  const mcpOf = (app: { get(token: symbol, options: { strict: false }): unknown }) =>
    app.get(MCP_OPTIONS, { strict: false }) as ResolvedMcpOptions;

  it("lays the factory's mcp over the mcp given directly, field by field", async () => {
    const app = await apps.init({
      imports: [
        ToolsModule.forRootAsync({
          registry: [pingTool],
          mcp: {
            path: '/tools',
            serverInfo: { name: 'static', version: '1.0.0' },
            maxBodyBytes: 1024,
          },
          useFactory: () => ({
            mcp: { serverInfo: { name: 'from-di', version: '2.0.0' }, protocol: undefined },
          }),
        }),
      ],
    });
    expect(mcpOf(app)).toMatchObject({
      path: '/tools',
      serverInfo: { name: 'from-di', version: '2.0.0' },
      maxBodyBytes: 1024,
      protocol: 'dual',
    });
  });

  it.each([
    [{ registry: [pingTool] }, ['registry']],
    [{ isGlobal: false, toolErrorFilter: false }, ['isGlobal', 'toolErrorFilter']],
    [
      { mountMiddleware: false, mcp: { mount: false, path: '/x' } },
      ['mountMiddleware', 'mcp.mount', 'mcp.path'],
    ],
  ])('refuses %j from the factory, naming where it goes', async (fromFactory, fields) => {
    await expect(
      apps.init({
        imports: [
          ToolsModule.forRootAsync({
            registry: [pingTool],
            useFactory: () => fromFactory as ToolsModuleFactoryOptions,
          }),
        ],
      }),
    ).rejects.toThrow(new ToolsConfigurationError(MESSAGES.staticFromFactory(fields)));
  });
});
