import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ToolsConfigurationError,
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  defineToolRegistry,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { resolveTools } from '../../lib/core/registry.js';
import { classTools, defineToolClass } from '../../lib/core/tool-class.js';
import { makeTool } from './support.js';

const ping = makeTool({ service: 'health', action: 'ping', method: 'GET' });
const getInvoice = makeTool({ service: 'billing', action: 'getInvoice', method: 'GET' });
const voidInvoice = makeTool({ service: 'billing', action: 'voidInvoice', method: 'DELETE' });

class InvoiceTools {
  list() {
    return ['inv_1'];
  }
  archive() {
    return true;
  }
}
defineToolClass(InvoiceTools, {
  serviceName: 'invoices',
  tools: [
    {
      methodName: 'list',
      action: 'listInvoices',
      method: 'GET',
      description: 'List invoices',
      input: z.object({}),
    },
    {
      methodName: 'archive',
      action: 'archive',
      method: 'PATCH',
      description: 'Archive an invoice',
      input: z.object({ id: z.string() }),
    },
  ],
});

describe('defineToolRegistry', () => {
  it('keeps declaration order in declared, tools and names', () => {
    const builder = defineToolRegistry({ defaults: [voidInvoice, ping, getInvoice] });
    const expected = ['billing_void_invoice', 'health_ping', 'billing_get_invoice'];
    expect(builder.declared).toEqual(expected);
    expect(Object.isFrozen(builder.declared)).toBe(true);
    const registry = builder.build();
    expect(registry.names).toEqual(expected);
    expect(registry.tools).toEqual([voidInvoice, ping, getInvoice]);
    expect(registry.tools[0]).toBe(voidInvoice);
  });

  it('builds a frozen { tools, names }', () => {
    const registry = defineToolRegistry({ defaults: [ping, getInvoice] }).build();
    expect(Object.keys(registry).sort()).toEqual(['names', 'tools']);
    expect(Object.isFrozen(registry)).toBe(true);
    expect(Object.isFrozen(registry.tools)).toBe(true);
    expect(Object.isFrozen(registry.names)).toBe(true);
  });

  it('accepts an empty list of defaults', () => {
    expect(defineToolRegistry({ defaults: [] }).build()).toEqual({ tools: [], names: [] });
  });

  it('refuses options without a defaults array', () => {
    const refusal = new ToolsConfigurationError(CORE_MESSAGES.registryDefaults());
    expect(() => defineToolRegistry({} as any)).toThrow(refusal);
    expect(() => defineToolRegistry(undefined as any)).toThrow(refusal);
  });

  it('refuses duplicate defaults, naming both origins', () => {
    const again = makeTool({ service: 'other', action: 'x', name: 'health_ping' });
    expect(() => defineToolRegistry({ defaults: [ping, again] })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.duplicateName(
          'health_ping',
          'runtime tool health.ping',
          'runtime tool other.x',
        ),
      ),
    );
  });

  it('refuses two runtime tools with the same explicit name, naming each by serviceName.action', () => {
    const first = makeTool({ name: 'same', service: 'billing', action: 'getInvoice' });
    const second = makeTool({ name: 'same', service: 'crm', action: 'findCustomer' });
    const refusal = new ToolsConfigurationError(
      CORE_MESSAGES.duplicateName(
        'same',
        'runtime tool billing.getInvoice',
        'runtime tool crm.findCustomer',
      ),
    );
    expect(() => defineToolRegistry({ defaults: [first, second] })).toThrow(refusal);
    expect(() => createToolInvoker([first, second])).toThrow(refusal);
    expect(() => resolveTools({ tools: [first, second], names: ['same', 'same'] })).toThrow(
      refusal,
    );
  });

  describe('disable', () => {
    it('drops a default and keeps the order of the rest', () => {
      const registry = defineToolRegistry({ defaults: [ping, getInvoice, voidInvoice] })
        .disable('billing_get_invoice')
        .build();
      expect(registry.names).toEqual(['health_ping', 'billing_void_invoice']);
      expect(registry.tools).toEqual([ping, voidInvoice]);
    });

    it('is idempotent', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice] });
      expect(() => builder.disable('health_ping').disable('health_ping')).not.toThrow();
      expect(builder.build().names).toEqual(['billing_get_invoice']);
    });

    it('refuses an unknown name synchronously, listing the declared names (sorted)', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice, voidInvoice] });
      expect(() => builder.disable('health_pong')).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.undeclaredDefault('disable', 'health_pong', [
            'billing_get_invoice',
            'billing_void_invoice',
            'health_ping',
          ]),
        ),
      );
      expect(() => defineToolRegistry({ defaults: [] }).disable('x')).toThrow(
        new ToolsConfigurationError(CORE_MESSAGES.undeclaredDefault('disable', 'x', [])),
      );
    });

    it('does not change a registry built earlier', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice] });
      const before = builder.build();
      builder.disable('health_ping');
      expect(before.names).toEqual(['health_ping', 'billing_get_invoice']);
      expect(builder.build().names).toEqual(['billing_get_invoice']);
    });

    it('may follow a replace: the slot is then dropped', () => {
      const replacement = makeTool({ name: 'health_ping', service: 'x', action: 'y' });
      const registry = defineToolRegistry({ defaults: [ping, getInvoice] })
        .replace('health_ping', replacement)
        .disable('health_ping')
        .build();
      expect(registry.names).toEqual(['billing_get_invoice']);
    });
  });

  describe('replace', () => {
    const myPing = makeTool({ name: 'health_ping', service: 'mine', action: 'ping' });

    it('substitutes a default in its place', () => {
      const registry = defineToolRegistry({ defaults: [getInvoice, ping, voidInvoice] })
        .replace('health_ping', myPing)
        .build();
      expect(registry.names).toEqual([
        'billing_get_invoice',
        'health_ping',
        'billing_void_invoice',
      ]);
      expect(registry.tools[1]).toBe(myPing);
    });

    it('requires the replacement to carry the same name', () => {
      expect(() =>
        defineToolRegistry({ defaults: [ping, getInvoice] }).replace('health_ping', getInvoice),
      ).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.replacementName('health_ping', ['billing_get_invoice']),
        ),
      );
    });

    it('may be given only once per name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).replace('health_ping', myPing);
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        new ToolsConfigurationError(CORE_MESSAGES.replacedTwice('health_ping')),
      );
    });

    it('refuses a disabled name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).disable('health_ping');
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        new ToolsConfigurationError(CORE_MESSAGES.replaceDisabled('health_ping')),
      );
    });

    it('refuses an unknown name synchronously, listing the declared names', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice] });
      expect(() => builder.replace('health_pong', myPing)).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.undeclaredDefault('replace', 'health_pong', [
            'billing_get_invoice',
            'health_ping',
          ]),
        ),
      );
    });

    it('refuses a replacement that is not a tool', () => {
      expect(() =>
        defineToolRegistry({ defaults: [ping] }).replace('health_ping', {
          name: 'health_ping',
        } as any),
      ).toThrow(CORE_MESSAGES.notATool('an object with keys name'));
    });

    it('takes the matching tool of a tool class', () => {
      class Replacement {
        archive() {
          return 'replaced';
        }
      }
      defineToolClass(Replacement, {
        serviceName: 'invoices',
        tools: [
          {
            methodName: 'archive',
            action: 'archive',
            method: 'PATCH',
            description: 'x',
            input: z.object({}),
          },
        ],
      });
      const registry = defineToolRegistry({ defaults: [InvoiceTools] })
        .replace('invoices_archive', Replacement)
        .build();
      expect(registry.names).toEqual(['invoices_list_invoices', 'invoices_archive']);
      expect(registry.tools[1]).toBe(classTools(Replacement)[0]);
    });
  });

  describe('tool classes in defaults', () => {
    it('expands a class into its tools with derived names, in place', () => {
      const registry = defineToolRegistry({ defaults: [ping, InvoiceTools, getInvoice] }).build();
      expect(registry.names).toEqual([
        'health_ping',
        'invoices_list_invoices',
        'invoices_archive',
        'billing_get_invoice',
      ]);
      expect(registry.tools[1]).toMatchObject({
        kind: 'class',
        target: InvoiceTools,
        methodName: 'list',
        origin: 'InvoiceTools.list',
        identity: { serviceName: 'invoices', action: 'listInvoices', method: 'GET' },
      });
    });

    it('can disable one tool of a class by name', () => {
      const registry = defineToolRegistry({ defaults: [InvoiceTools] })
        .disable('invoices_archive')
        .build();
      expect(registry.names).toEqual(['invoices_list_invoices']);
    });

    it('refuses a duplicate between a class and a runtime tool, naming both origins', () => {
      const clash = makeTool({ name: 'invoices_archive', service: 'x', action: 'y' });
      expect(() => defineToolRegistry({ defaults: [InvoiceTools, clash] })).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.duplicateName(
            'invoices_archive',
            'InvoiceTools.archive',
            'runtime tool x.y',
          ),
        ),
      );
      expect(() => createToolInvoker([clash, InvoiceTools])).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.duplicateName(
            'invoices_archive',
            'runtime tool x.y',
            'InvoiceTools.archive',
          ),
        ),
      );
    });

    it.each([
      [
        'a class without tool metadata',
        class PlainService {},
        CORE_MESSAGES.notATool('class PlainService'),
      ],
      [
        'a plain object',
        { name: 'x', handler: () => 1 },
        CORE_MESSAGES.notATool('an object with keys name, handler'),
      ],
      ['an empty object', {}, CORE_MESSAGES.notATool('an object with keys (none)')],
      ['a string', 'health_ping', CORE_MESSAGES.notATool('health_ping')],
      ['null', null, CORE_MESSAGES.notATool('null')],
      ['undefined', undefined, CORE_MESSAGES.notATool('undefined')],
    ])('refuses %s with a helpful message', (_label, value, message) => {
      let error: Error | undefined;
      try {
        defineToolRegistry({ defaults: [ping, value as any] });
      } catch (caught) {
        error = caught as Error;
      }
      expect(error).toBeInstanceOf(ToolsConfigurationError);
      expect(error?.message).toMatch(message);
      expect(error?.message).toContain(
        'Use defineRuntimeTool(...) or a class decorated with @ToolFactory.',
      );
    });

    it('does not count a subclass of a tool class as a tool class', () => {
      class Derived extends InvoiceTools {}
      expect(() => defineToolRegistry({ defaults: [Derived] })).toThrow(
        CORE_MESSAGES.notATool('class Derived'),
      );
    });
  });
});

describe('resolveTools', () => {
  it('accepts a builder, its build() result and a list alike', () => {
    const builder = defineToolRegistry({ defaults: [ping, InvoiceTools] }).disable('health_ping');
    const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);
    expect(names(resolveTools(builder))).toEqual(['invoices_list_invoices', 'invoices_archive']);
    expect(names(resolveTools(builder.build()))).toEqual([
      'invoices_list_invoices',
      'invoices_archive',
    ]);
    expect(names(resolveTools([ping, InvoiceTools]))).toEqual([
      'health_ping',
      'invoices_list_invoices',
      'invoices_archive',
    ]);
  });

  it('refuses a hand-made registry with duplicate names', () => {
    expect(() =>
      resolveTools({ tools: [ping, ping], names: ['health_ping', 'health_ping'] }),
    ).toThrow(
      CORE_MESSAGES.duplicateName(
        'health_ping',
        'runtime tool health.ping',
        'runtime tool health.ping',
      ),
    );
  });

  it('refuses anything else with a ToolsConfigurationError', () => {
    expect(() => resolveTools({ tools: 'x' } as any)).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.notACollection('an object with keys tools')),
    );
    expect(() => resolveTools(42 as any)).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.notACollection('42')),
    );
  });

  it('feeds an invoker the composed surface only', async () => {
    const registry = defineToolRegistry({ defaults: [ping, getInvoice] }).disable('health_ping');
    const invoker = createToolInvoker(registry);
    expect(invoker.names('MCP')).toEqual(['billing_get_invoice']);
    await expect(
      invoker.invoke('health_ping', {}, { transport: 'MCP', source: 'mcp' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('composition errors', () => {
  const base = {
    description: 'Answer pong',
    identity: { serviceName: 'health', action: 'ping', method: 'GET' as const },
    input: z.object({}),
    handler: () => ({ pong: true }),
  };
  class NoMethod {}
  defineToolClass(NoMethod, {
    serviceName: 'ghost',
    tools: [
      {
        methodName: 'walk',
        action: 'walk',
        method: 'POST',
        description: 'Walk',
        input: z.object({}),
      },
    ],
  });

  it.each<[string, () => unknown, string]>([
    [
      'a duplicate name',
      () => createToolInvoker([ping, makeTool({ name: 'health_ping', service: 'a', action: 'b' })]),
      CORE_MESSAGES.duplicateName('health_ping', 'runtime tool health.ping', 'runtime tool a.b'),
    ],
    [
      'an invalid name',
      () => defineRuntimeTool({ ...base, name: 'bad/name' }),
      CORE_MESSAGES.toolName(
        'bad/name',
        'runtime tool health.ping',
        'must match ^[a-zA-Z0-9_-]{1,64}$',
      ),
    ],
    [
      'a name that cannot be derived',
      () => defineRuntimeTool({ ...base, identity: { ...base.identity, serviceName: '***' } }),
      CORE_MESSAGES.underivableName('***', 'ping', 'the service name'),
    ],
    [
      'a non-object input schema',
      () => defineRuntimeTool({ ...base, input: z.string() as any }),
      CORE_MESSAGES.inputNotObject('health_ping', 'runtime tool health.ping'),
    ],
    [
      'a missing description',
      () => defineRuntimeTool({ ...base, description: ' ' }),
      CORE_MESSAGES.noDescription('health_ping', 'runtime tool health.ping'),
    ],
    [
      'an unknown method',
      () => defineRuntimeTool({ ...base, identity: { ...base.identity, method: 'FETCH' as any } }),
      CORE_MESSAGES.unknownMethod('health_ping', 'runtime tool health.ping', 'FETCH'),
    ],
    [
      'an output that is not a schema',
      () => defineRuntimeTool({ ...base, output: { pong: z.boolean() } as any }),
      CORE_MESSAGES.outputNotSchema('health_ping', 'runtime tool health.ping'),
    ],
    [
      'a bad timeout',
      () => defineRuntimeTool({ ...base, timeoutMs: 0 }),
      CORE_MESSAGES.timeoutMs('health_ping', 'runtime tool health.ping', 0),
    ],
    [
      'a missing handler',
      () => defineRuntimeTool({ ...base, handler: undefined as any }),
      CORE_MESSAGES.noHandler('health_ping', 'runtime tool health.ping'),
    ],
    [
      'a factory without a context schema',
      () => createRuntimeToolFactory({ serviceName: 'billing' } as any),
      CORE_MESSAGES.factoryContext('billing'),
    ],
    [
      'a class that is not a tool class',
      () => classTools(class Plain {}),
      CORE_MESSAGES.notToolClass('Plain'),
    ],
    [
      'a class tool whose method is missing',
      () => createToolInvoker([NoMethod]),
      CORE_MESSAGES.noMethod('ghost_walk', 'NoMethod.walk', 'NoMethod', 'walk'),
    ],
    [
      'something that is not a tool',
      () => createToolInvoker([{ name: 'x' } as any]),
      CORE_MESSAGES.notATool('an object with keys name'),
    ],
    [
      'an unknown disable name',
      () => defineToolRegistry({ defaults: [ping] }).disable('nope'),
      CORE_MESSAGES.undeclaredDefault('disable', 'nope', ['health_ping']),
    ],
    [
      'an unknown replace name',
      () => defineToolRegistry({ defaults: [ping] }).replace('nope', ping),
      CORE_MESSAGES.undeclaredDefault('replace', 'nope', ['health_ping']),
    ],
    [
      'a replacement carrying another name',
      () => defineToolRegistry({ defaults: [ping] }).replace('health_ping', getInvoice),
      CORE_MESSAGES.replacementName('health_ping', ['billing_get_invoice']),
    ],
    [
      'an unrepresentable schema',
      () => createToolInvoker([makeTool({ service: 'a', action: 'b', output: z.date() })]),
      CORE_MESSAGES.unrepresentable(
        'Tool "a_b" (runtime tool a.b)',
        'output',
        'output',
        'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
      ),
    ],
  ])('%s is a ToolsConfigurationError', (_label, compose, message) => {
    let error: unknown;
    try {
      compose();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolsConfigurationError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ToolsConfigurationError', message });
  });
});
