import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  classTools,
  createToolInvoker,
  defineToolClass,
  defineToolRegistry,
  resolveTools,
} from '../../lib/core/index.js';
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
    expect(() => defineToolRegistry({} as any)).toThrow(TypeError);
    expect(() => defineToolRegistry(undefined as any)).toThrow(
      'defineToolRegistry needs { defaults: [...] }: a list of tools and tool classes.',
    );
  });

  it('refuses duplicate defaults, naming both origins', () => {
    const again = makeTool({ service: 'other', action: 'x', name: 'health_ping' });
    expect(() => defineToolRegistry({ defaults: [ping, again] })).toThrow(
      'Duplicate tool name "health_ping": declared by runtime tool "health.ping" and by runtime tool "health_ping".',
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
        'Tool registry disable("health_pong") names no default; declared: billing_get_invoice, billing_void_invoice, health_ping.',
      );
      expect(() => defineToolRegistry({ defaults: [] }).disable('x')).toThrow(
        'Tool registry disable("x") names no default; declared: (none).',
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
      ).toThrow('A replacement for "health_ping" must carry that name, not "billing_get_invoice".');
    });

    it('may be given only once per name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).replace('health_ping', myPing);
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        'Tool registry already replaced "health_ping".',
      );
    });

    it('refuses a disabled name', () => {
      const builder = defineToolRegistry({ defaults: [ping] }).disable('health_ping');
      expect(() => builder.replace('health_ping', myPing)).toThrow(
        'Tool registry cannot replace "health_ping": it is disabled.',
      );
    });

    it('refuses an unknown name synchronously, listing the declared names', () => {
      const builder = defineToolRegistry({ defaults: [ping, getInvoice] });
      expect(() => builder.replace('health_pong', myPing)).toThrow(
        'Tool registry replace("health_pong") names no default; declared: billing_get_invoice, health_ping.',
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
        'Duplicate tool name "invoices_archive": declared by InvoiceTools.archive and by runtime tool "invoices_archive".',
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

  it('refuses anything else with a TypeError', () => {
    expect(() => resolveTools({ tools: 'x' } as any)).toThrow(TypeError);
    expect(() => resolveTools(42 as any)).toThrow(
      'Expected a tool registry, its build() result or a list of tools, got 42.',
    );
  });

  it('feeds an invoker the composed surface only', async () => {
    const registry = defineToolRegistry({ defaults: [ping, getInvoice] }).disable('health_ping');
    const invoker = createToolInvoker(registry);
    expect(invoker.names('MCP')).toEqual(['billing_get_invoice']);
    await expect(invoker.invoke('health_ping', {}, { transport: 'MCP' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
