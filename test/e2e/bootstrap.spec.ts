import 'reflect-metadata';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Injectable, Logger, Module } from '@nestjs/common';
import { z } from 'zod';
import {
  Tool,
  ToolError,
  ToolFactory,
  ToolInvoker,
  ToolsConfigurationError,
  ToolsModule,
  defineRuntimeTool,
  defineToolRegistry,
} from '../../lib/index.js';
import { ToolsConfigurationError as CoreToolsConfigurationError } from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { MESSAGES } from '../../lib/nest/tools.messages.js';
import { TestApps } from '../fixtures/apps.js';
import { CatalogModule, CatalogTools, ProductsService, pingTool } from '../fixtures/catalog.js';

@ToolFactory({ serviceName: 'health' })
@Injectable()
class HealthTools {
  @Tool({ action: 'ping', method: 'GET', description: 'Answer pong', input: z.object({}) })
  ping() {
    return { pong: 'class' };
  }
}

@ToolFactory({ serviceName: 'files' })
@Injectable()
class BadNameTools {
  @Tool({
    name: 'bad/name',
    action: 'read',
    method: 'GET',
    description: 'Read a file',
    input: z.object({}),
  })
  read() {
    return {};
  }
}

@ToolFactory({ serviceName: 'echo' })
@Injectable()
class ScalarInputTools {
  @Tool({
    action: 'say',
    method: 'POST',
    description: 'Echo a string',
    input: z.string() as unknown as z.ZodObject<any, any>,
  })
  say() {
    return {};
  }
}

@ToolFactory({ serviceName: 'events' })
@Injectable()
class DateInputTools {
  @Tool({
    action: 'create',
    method: 'POST',
    description: 'Create an event',
    input: z.object({ title: z.string(), when: z.date() }),
  })
  create() {
    return {};
  }
}

/** A runtime tool whose output holds a Map: JSON Schema has no form for it. */
const mapOutputTool = defineRuntimeTool({
  description: 'Count events per day',
  identity: { serviceName: 'events', action: 'countByDay', method: 'GET' },
  input: z.object({}),
  output: z.object({ days: z.array(z.object({ counts: z.map(z.string(), z.number()) })) }),
  handler: () => ({ days: [] }),
});

/** `@Tool` methods, but the class was never decorated with `@ToolFactory`. */
@Injectable()
class ForgottenFactory {
  @Tool({ action: 'run', method: 'POST', description: 'Run it', input: z.object({}) })
  run() {
    return {};
  }

  @Tool({ action: 'stop', method: 'POST', description: 'Stop it', input: z.object({}) })
  stop() {
    return {};
  }
}

/** A decorated tool class that is provided but left out of the registry. */
@ToolFactory({ serviceName: 'legacy' })
@Injectable()
class LegacyTools {
  @Tool({ action: 'export', method: 'GET', description: 'Export everything', input: z.object({}) })
  export() {
    return {};
  }
}

const apps = new TestApps();
afterEach(async () => {
  jest.restoreAllMocks();
  await apps.closeAll();
});

describe('bootstrap failures', () => {
  it('refuses a registry class that no module provides, naming it and the fix', async () => {
    const app = await apps.create({
      imports: [ToolsModule.forRoot([CatalogTools, pingTool])],
      providers: [ProductsService],
    });
    await expect(app.init()).rejects.toThrow(
      MESSAGES.classNotProvided('CatalogTools', ['catalog_list', 'catalog_get', 'catalog_remove']),
    );
  });

  it('refuses a class tool and a runtime tool of the same name, naming both origins', () => {
    const refusal = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName('health_ping', 'HealthTools.ping', 'runtime tool health.ping'),
    );
    expect(() => defineToolRegistry({ defaults: [HealthTools, pingTool] })).toThrow(refusal);
    expect(() => ToolsModule.forRoot([HealthTools, pingTool])).toThrow(refusal);
    expect(() => ToolsModule.forRoot({ registry: [pingTool, HealthTools] })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName('health_ping', 'runtime tool health.ping', 'HealthTools.ping'),
      ),
    );
  });

  it('refuses two runtime tools with the same explicit name in forRoot(), naming each serviceName.action', () => {
    const other = defineRuntimeTool({
      name: 'health_ping',
      description: 'Answer pong too',
      identity: { serviceName: 'status', action: 'ping', method: 'GET' },
      input: z.object({}),
      handler: () => ({ pong: true }),
    });
    const refusal = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName(
        'health_ping',
        'runtime tool health.ping',
        'runtime tool status.ping',
      ),
    );
    expect(() => ToolsModule.forRoot([pingTool, other])).toThrow(refusal);
    expect(() =>
      ToolsModule.forRoot({ registry: { tools: [pingTool, other], names: [] } }),
    ).toThrow(refusal);
  });

  it('refuses forRoot() without a registry with the same error class', () => {
    expect(() => ToolsModule.forRoot({} as any)).toThrow(
      new ToolsConfigurationError(MESSAGES.noRegistry()),
    );
  });

  it('exports one ToolsConfigurationError class, from core and from the Nest barrel', () => {
    expect(ToolsConfigurationError).toBe(CoreToolsConfigurationError);
  });

  it('refuses a @Tool input schema JSON Schema cannot express at app.init(), naming the tool and the path', async () => {
    const app = await apps.create({
      imports: [ToolsModule.forRoot([DateInputTools])],
      providers: [DateInputTools],
    });
    await expect(app.init()).rejects.toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          'Tool "events_create" (DateInputTools.create)',
          'input',
          'input.when',
          'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
        ),
      ),
    );
  });

  it('refuses a runtime tool output schema JSON Schema cannot express at app.init()', async () => {
    const app = await apps.create({ imports: [ToolsModule.forRoot([mapOutputTool])] });
    await expect(app.init()).rejects.toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          'Tool "events_count_by_day" (runtime tool events.countByDay)',
          'output',
          'output.days[].counts',
          'z.map() has no JSON Schema form; use z.record() or an array of [key, value] tuples',
        ),
      ),
    );
  });

  it('refuses an invalid @Tool name at app.init(), naming Class.method', async () => {
    const app = await apps.create({
      imports: [ToolsModule.forRoot([BadNameTools])],
      providers: [BadNameTools],
    });
    await expect(app.init()).rejects.toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.toolName('bad/name', 'BadNameTools.read', 'must match ^[a-zA-Z0-9_-]{1,64}$'),
      ),
    );
  });

  it('refuses a non-object @Tool input schema at app.init(), naming the tool', async () => {
    const app = await apps.create({
      imports: [ToolsModule.forRoot([ScalarInputTools])],
      providers: [ScalarInputTools],
    });
    await expect(app.init()).rejects.toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.inputNotObject('echo_say', 'ScalarInputTools.say')),
    );
  });

  it('refuses unknown disable/replace names synchronously, listing the declared names', () => {
    const registry = defineToolRegistry({ defaults: [CatalogTools, pingTool] });
    const declared = ['catalog_get', 'catalog_list', 'catalog_remove', 'health_ping'];
    expect(() => registry.disable('catalog_delete')).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.undeclaredDefault('disable', 'catalog_delete', declared),
      ),
    );
    expect(() => registry.replace('health_pong', pingTool)).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.undeclaredDefault('replace', 'health_pong', declared),
      ),
    );
  });

  it('refuses a provided class with @Tool methods but no @ToolFactory, naming it and the fix', async () => {
    const app = await apps.create({
      imports: [CatalogModule, ToolsModule.forRoot([CatalogTools])],
      providers: [ForgottenFactory],
    });
    await expect(app.init()).rejects.toThrow(
      MESSAGES.orphanToolMethods('ForgottenFactory', ['run', 'stop']),
    );
  });

  it('warns about a provided @ToolFactory class left out of the registry and does not expose it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    @Module({ providers: [LegacyTools] })
    class LegacyModule {}
    const app = await apps.init({
      imports: [CatalogModule, LegacyModule, ToolsModule.forRoot([CatalogTools])],
    });
    const warnings = warn.mock.calls
      .map(([message]) => String(message))
      .filter((message) => /@ToolFactory/.test(message));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^LegacyTools declares tools with @ToolFactory but is not in the tool registry, so they are not exposed\./,
      ),
    ]);
    const tools = app.get(ToolInvoker);
    for (const transport of ['MCP', 'AGENT', 'CLI'] as const) {
      expect(tools.names(transport)).not.toContain('legacy_export');
    }
    const unknown = tools.invoke('legacy_export', {}, { transport: 'AGENT', source: 'agent' });
    await expect(unknown).rejects.toBeInstanceOf(ToolError);
    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
