import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ToolsConfigurationError,
  createRuntimeToolFactory,
  createToolInvoker,
  defineRuntimeTool,
  defineToolRegistry,
} from '../../lib/core/index.js';
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
    const refusal = new ToolsConfigurationError(
      'defineToolRegistry needs { defaults: [...] }: a list of tools and tool classes.',
    );
    expect(() => defineToolRegistry({} as any)).toThrow(refusal);
    expect(() => defineToolRegistry(undefined as any)).toThrow(refusal);
  });

  it('refuses duplicate defaults, naming both origins', () => {
    const again = makeTool({ service: 'other', action: 'x', name: 'health_ping' });
    expect(() => defineToolRegistry({ defaults: [ping, again] })).toThrow(
      new ToolsConfigurationError(
        'Duplicate tool name "health_ping": declared by runtime tool health.ping and by runtime tool other.x.',
      ),
    );
  });

  it('refuses two runtime tools with the same explicit name, naming each by serviceName.action', () => {
    const first = makeTool({ name: 'same', service: 'billing', action: 'getInvoice' });
    const second = makeTool({ name: 'same', service: 'crm', action: 'findCustomer' });
    const refusal = new ToolsConfigurationError(
      'Duplicate tool name "same": declared by runtime tool billing.getInvoice and by runtime tool crm.findCustomer.',
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
          'Tool registry disable("health_pong") names no default; declared: billing_get_invoice, billing_void_invoice, health_ping.',
        ),
      );
      expect(() => defineToolRegistry({ defaults: [] }).disable('x')).toThrow(
        new ToolsConfigurationError(
          'Tool registry disable("x") names no default; declared: (none).',
        ),
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
          'A replacement for "health_ping" must carry that name, not "billing_get_invoice".',
        ),
      );
    });

    it('may be given only once per name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).replace('health_ping', myPing);
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        new ToolsConfigurationError('Tool registry already replaced "health_ping".'),
      );
    });

    it('refuses a disabled name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).disable('health_ping');
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        new ToolsConfigurationError('Tool registry cannot replace "health_ping": it is disabled.'),
      );
    });

    it('refuses an unknown name synchronously, listing the declared names', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice] });
      expect(() => builder.replace('health_pong', myPing)).toThrow(
        new ToolsConfigurationError(
          'Tool registry replace("health_pong") names no default; declared: billing_get_invoice, health_ping.',
        ),
      );
    });

    it('refuses a replacement that is not a tool', () => {
      expect(() =>
        defineToolRegistry({ defaults: [ping] }).replace('health_ping', {
          name: 'health_ping',
        } as any),
      ).toThrow(/^Not a tool: an object with keys name\./);
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
          'Duplicate tool name "invoices_archive": declared by InvoiceTools.archive and by runtime tool x.y.',
        ),
      );
      expect(() => createToolInvoker([clash, InvoiceTools])).toThrow(
        new ToolsConfigurationError(
          'Duplicate tool name "invoices_archive": declared by runtime tool x.y and by InvoiceTools.archive.',
        ),
      );
    });

    it.each([
      ['a class without tool metadata', class PlainService {}, /^Not a tool: class PlainService\./],
      [
        'a plain object',
        { name: 'x', handler: () => 1 },
        /^Not a tool: an object with keys name, handler\./,
      ],
      ['an empty object', {}, /^Not a tool: an object with keys \(none\)\./],
      ['a string', 'health_ping', /^Not a tool: health_ping\./],
      ['null', null, /^Not a tool: null\./],
      ['undefined', undefined, /^Not a tool: undefined\./],
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
        /^Not a tool: class Derived\./,
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
    ).toThrow(/Duplicate tool name "health_ping"/);
  });

  it('refuses anything else with a ToolsConfigurationError', () => {
    expect(() => resolveTools({ tools: 'x' } as any)).toThrow(
      new ToolsConfigurationError(
        'Expected a tool registry, its build() result or a list of tools, got an object with keys tools.',
      ),
    );
    expect(() => resolveTools(42 as any)).toThrow(
      new ToolsConfigurationError(
        'Expected a tool registry, its build() result or a list of tools, got 42.',
      ),
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
      'Duplicate tool name "health_ping": declared by runtime tool health.ping and by runtime tool a.b.',
    ],
    [
      'an invalid name',
      () => defineRuntimeTool({ ...base, name: 'bad/name' }),
      'Tool name "bad/name" (runtime tool health.ping) must match ^[a-zA-Z0-9_-]{1,64}$. Set a shorter or plainer `name`.',
    ],
    [
      'a name that cannot be derived',
      () => defineRuntimeTool({ ...base, identity: { ...base.identity, serviceName: '***' } }),
      'Cannot derive a tool name from service "***" and action "ping": the service name has no letters or digits. Set an explicit `name`.',
    ],
    [
      'a non-object input schema',
      () => defineRuntimeTool({ ...base, input: z.string() as any }),
      'Tool "health_ping" (runtime tool health.ping) must have a Zod object input schema (z.object({...})); wrap a scalar or union in an object.',
    ],
    [
      'a missing description',
      () => defineRuntimeTool({ ...base, description: ' ' }),
      'Tool "health_ping" (runtime tool health.ping) needs a non-empty description.',
    ],
    [
      'an unknown method',
      () => defineRuntimeTool({ ...base, identity: { ...base.identity, method: 'FETCH' as any } }),
      'Tool "health_ping" (runtime tool health.ping) has method "FETCH"; use one of GET, POST, PUT, PATCH, DELETE.',
    ],
    [
      'an output that is not a schema',
      () => defineRuntimeTool({ ...base, output: { pong: z.boolean() } as any }),
      'Tool "health_ping" (runtime tool health.ping) has an output that is not a Zod schema.',
    ],
    [
      'a bad timeout',
      () => defineRuntimeTool({ ...base, timeoutMs: 0 }),
      'Tool "health_ping" (runtime tool health.ping) has timeoutMs 0; use a positive number.',
    ],
    [
      'a missing handler',
      () => defineRuntimeTool({ ...base, handler: undefined as any }),
      'Tool "health_ping" (runtime tool health.ping) needs a handler function.',
    ],
    [
      'a factory without a context schema',
      () => createRuntimeToolFactory({ serviceName: 'billing' } as any),
      'Tool factory "billing" needs a Zod `context` schema.',
    ],
    [
      'a class that is not a tool class',
      () => classTools(class Plain {}),
      'Plain is not a tool class: decorate it with @ToolFactory and its methods with @Tool.',
    ],
    [
      'a class tool whose method is missing',
      () => createToolInvoker([NoMethod]),
      'Tool "ghost_walk" (NoMethod.walk) has no method to call: NoMethod has no method "walk".',
    ],
    [
      'something that is not a tool',
      () => createToolInvoker([{ name: 'x' } as any]),
      'Not a tool: an object with keys name. Use defineRuntimeTool(...) or a class decorated with @ToolFactory.',
    ],
    [
      'an unknown disable name',
      () => defineToolRegistry({ defaults: [ping] }).disable('nope'),
      'Tool registry disable("nope") names no default; declared: health_ping.',
    ],
    [
      'an unknown replace name',
      () => defineToolRegistry({ defaults: [ping] }).replace('nope', ping),
      'Tool registry replace("nope") names no default; declared: health_ping.',
    ],
    [
      'a replacement carrying another name',
      () => defineToolRegistry({ defaults: [ping] }).replace('health_ping', getInvoice),
      'A replacement for "health_ping" must carry that name, not "billing_get_invoice".',
    ],
    [
      'an unrepresentable schema',
      () => createToolInvoker([makeTool({ service: 'a', action: 'b', output: z.date() })]),
      'Tool "a_b" (runtime tool a.b): its output schema cannot be expressed in JSON Schema, at output: z.date() has no JSON Schema form; use z.iso.datetime() or z.string().',
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
