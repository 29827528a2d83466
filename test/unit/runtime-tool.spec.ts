import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  ToolsConfigurationError,
  createToolInvoker,
  defineRuntimeTool,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { isRuntimeTool, resolveAnnotations } from '../../lib/core/runtime-tool.js';
import { DEFAULT_TRANSPORTS, type ToolMethod } from '../../lib/core/types.js';

const base = {
  description: 'Fetch one invoice',
  identity: { serviceName: 'billing', action: 'getInvoice', method: 'GET' as ToolMethod },
  input: z.object({ id: z.string() }),
  handler: () => null,
};

describe('defineRuntimeTool', () => {
  it('returns a frozen definition with the derived name and the declared fields', () => {
    const output = z.object({ id: z.string() });
    const handler = () => ({ id: 'x' });
    const tool = defineRuntimeTool({ ...base, output, timeoutMs: 1000, handler });
    expect(Object.isFrozen(tool)).toBe(true);
    expect(tool.kind).toBe('runtime');
    expect(tool.name).toBe('billing_get_invoice');
    expect(tool.description).toBe('Fetch one invoice');
    expect(tool.input).toBe(base.input);
    expect(tool.output).toBe(output);
    expect(tool.timeoutMs).toBe(1000);
    expect(tool.handler).toBe(handler);
    expect(tool.origin).toBe('runtime tool billing.getInvoice');
    expect(isRuntimeTool(tool)).toBe(true);
    const rename = () => {
      (tool as any).name = 'changed';
    };
    expect(rename).toThrow(TypeError);
    expect(rename).toThrow("Cannot assign to read only property 'name' of object");
  });

  it('freezes a copy of the identity', () => {
    const identity = { serviceName: 'billing', action: 'getInvoice', method: 'GET' as const };
    const tool = defineRuntimeTool({ ...base, identity });
    expect(Object.isFrozen(tool.identity)).toBe(true);
    expect(tool.identity).toEqual(identity);
    identity.serviceName = 'mutated';
    expect(tool.identity.serviceName).toBe('billing');
  });

  it('leaves absent optional fields out', () => {
    const tool = defineRuntimeTool(base);
    expect('output' in tool).toBe(false);
    expect('context' in tool).toBe(false);
    expect('timeoutMs' in tool).toBe(false);
    expect('present' in tool).toBe(false);
  });

  it('names an explicit-name tool after its identity in the origin: where it was declared', () => {
    expect(defineRuntimeTool({ ...base, name: 'invoice' }).origin).toBe(
      'runtime tool billing.getInvoice',
    );
  });

  it('refuses a tool without identity with a ToolsConfigurationError naming it', () => {
    expect(() =>
      defineRuntimeTool({ ...base, name: 'invoice', identity: undefined as any }),
    ).toThrow(new ToolsConfigurationError(CORE_MESSAGES.noIdentity('runtime tool "invoice"')));
  });

  describe('transports', () => {
    it("defaults to ['MCP', 'AGENT'], frozen", () => {
      const tool = defineRuntimeTool(base);
      expect(tool.transports).toEqual(['MCP', 'AGENT']);
      expect(DEFAULT_TRANSPORTS).toEqual(['MCP', 'AGENT']);
      expect(Object.isFrozen(tool.transports)).toBe(true);
    });

    it('keeps a declared list as a frozen copy', () => {
      const transports: ('CLI' | 'MCP')[] = ['CLI'];
      const tool = defineRuntimeTool({ ...base, transports });
      transports.push('MCP');
      expect(tool.transports).toEqual(['CLI']);
      expect(Object.isFrozen(tool.transports)).toBe(true);
    });

    it('refuses an empty list', () => {
      expect(() => defineRuntimeTool({ ...base, transports: [] })).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.noTransport('billing_get_invoice', 'runtime tool billing.getInvoice'),
        ),
      );
    });

    it('refuses an unknown transport, naming it and the known ones', () => {
      expect(() => defineRuntimeTool({ ...base, transports: ['MCP', 'HTTP' as any] })).toThrow(
        CORE_MESSAGES.unknownTransport(
          'billing_get_invoice',
          'runtime tool billing.getInvoice',
          'HTTP',
        ),
      );
      expect(() => defineRuntimeTool({ ...base, transports: ['mcp' as any] })).toThrow(
        CORE_MESSAGES.unknownTransport(
          'billing_get_invoice',
          'runtime tool billing.getInvoice',
          'mcp',
        ),
      );
    });
  });

  describe('input', () => {
    it.each([
      ['a string schema', z.string()],
      ['a union of objects', z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])],
      ['an optional object', z.object({ a: z.string() }).optional()],
      ['a plain object of schemas', { id: z.string() }],
      ['null', null],
    ])('refuses %s, naming the tool', (_label, input) => {
      expect(() => defineRuntimeTool({ ...base, input: input as any })).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.inputNotObject('billing_get_invoice', 'runtime tool billing.getInvoice'),
        ),
      );
    });

    it('takes no arguments when it declares no input: an empty object schema', async () => {
      const { input: _none, ...withoutInput } = base;
      const tool = defineRuntimeTool({ ...withoutInput, handler: ({ input }) => ({ input }) });
      const invoker = createToolInvoker([tool]);
      expect(invoker.find(tool.name, 'MCP')?.inputSchema).toMatchObject({
        type: 'object',
        properties: {},
      });
      await expect(invoker.invoke(tool.name, {}, { transport: 'AGENT' })).resolves.toEqual({
        ok: true,
        data: { input: {} },
      });
    });

    it('accepts strict and loose object schemas', () => {
      expect(() => defineRuntimeTool({ ...base, input: z.strictObject({}) })).not.toThrow();
      expect(() => defineRuntimeTool({ ...base, input: z.looseObject({}) })).not.toThrow();
    });
  });

  describe('annotations', () => {
    it.each([
      ['GET', { readOnlyHint: true }],
      ['POST', { readOnlyHint: false }],
      ['PUT', { readOnlyHint: false, idempotentHint: true }],
      ['PATCH', { readOnlyHint: false }],
      ['DELETE', { readOnlyHint: false, destructiveHint: true }],
    ] as const)('defaults %s to %p', (method, expected) => {
      const tool = defineRuntimeTool({ ...base, identity: { ...base.identity, method } });
      expect(tool.annotations).toStrictEqual(expected);
      expect(Object.isFrozen(tool.annotations)).toBe(true);
    });

    it('lets declared annotations override and extend the defaults', () => {
      const tool = defineRuntimeTool({
        ...base,
        identity: { ...base.identity, method: 'DELETE' },
        annotations: { destructiveHint: false, title: 'Archive', openWorldHint: true },
      });
      expect(tool.annotations).toStrictEqual({
        readOnlyHint: false,
        destructiveHint: false,
        title: 'Archive',
        openWorldHint: true,
      });
      const get = defineRuntimeTool({ ...base, annotations: { readOnlyHint: false } });
      expect(get.annotations.readOnlyHint).toBe(false);
    });

    it('resolveAnnotations does not mutate the defaults', () => {
      resolveAnnotations('GET', { readOnlyHint: false });
      expect(resolveAnnotations('GET')).toStrictEqual({ readOnlyHint: true });
    });
  });

  describe('presenters', () => {
    it('refuses presenters without an output schema', () => {
      expect(() =>
        defineRuntimeTool({ ...base, present: { mcp: () => ({ content: [] }) } } as any),
      ).toThrow(
        new ToolsConfigurationError(
          CORE_MESSAGES.presentersWithoutOutput(
            'billing_get_invoice',
            'runtime tool billing.getInvoice',
          ),
        ),
      );
    });

    it('keeps presenters with an output schema, frozen', () => {
      const mcp = () => ({ content: [{ type: 'text', text: 'x' }] });
      const tool = defineRuntimeTool({
        ...base,
        output: z.object({ id: z.string() }),
        present: { mcp },
        handler: () => ({ id: 'inv_1' }),
      });
      expect(tool.present?.mcp).toBe(mcp);
      expect(Object.isFrozen(tool.present)).toBe(true);
    });
  });

  describe('other refusals', () => {
    it('refuses a missing identity', () => {
      expect(() => defineRuntimeTool({ ...base, name: 'x', identity: undefined as any })).toThrow(
        CORE_MESSAGES.noIdentity('runtime tool "x"'),
      );
    });

    it('refuses an unknown method, listing the valid ones', () => {
      expect(() =>
        defineRuntimeTool({ ...base, identity: { ...base.identity, method: 'FETCH' as any } }),
      ).toThrow(
        CORE_MESSAGES.unknownMethod(
          'billing_get_invoice',
          'runtime tool billing.getInvoice',
          'FETCH',
        ),
      );
    });

    it.each(['', '   ', undefined])('refuses the description %p', (description) => {
      expect(() => defineRuntimeTool({ ...base, description: description as any })).toThrow(
        CORE_MESSAGES.noDescription('billing_get_invoice', 'runtime tool billing.getInvoice'),
      );
    });

    it('refuses a missing handler', () => {
      expect(() => defineRuntimeTool({ ...base, handler: undefined as any })).toThrow(
        CORE_MESSAGES.noHandler('billing_get_invoice', 'runtime tool billing.getInvoice'),
      );
    });

    it('refuses an output or context that is not a schema', () => {
      expect(() => defineRuntimeTool({ ...base, output: { id: 'string' } as any })).toThrow(
        CORE_MESSAGES.outputNotSchema('billing_get_invoice', 'runtime tool billing.getInvoice'),
      );
      expect(() => defineRuntimeTool({ ...base, context: { id: 'string' } as any })).toThrow(
        CORE_MESSAGES.contextNotSchema('billing_get_invoice', 'runtime tool billing.getInvoice'),
      );
    });

    it.each([[['']], [['has space']], [['x'.repeat(65)]], ['admin'], [[7]]])(
      'refuses the tags %p',
      (tags) => {
        expect(() => defineRuntimeTool({ ...base, tags: tags as any })).toThrow(
          CORE_MESSAGES.tags('billing_get_invoice', 'runtime tool billing.getInvoice', tags),
        );
      },
    );

    it('refuses scopes given as one string, not split into letters', () => {
      expect(() => defineRuntimeTool({ ...base, scopes: 'kb:read' as any })).toThrow(
        CORE_MESSAGES.scope('billing_get_invoice', 'runtime tool billing.getInvoice', 'kb:read'),
      );
    });

    it('keeps tags once each, frozen, on the spec and the descriptor', () => {
      const tool = defineRuntimeTool({ ...base, tags: ['admin', 'billing:read', 'admin'] });
      expect(tool.tags).toEqual(['admin', 'billing:read']);
      expect(Object.isFrozen(tool.tags)).toBe(true);
      expect(createToolInvoker([tool]).find(tool.name, 'MCP')?.tags).toEqual([
        'admin',
        'billing:read',
      ]);
    });

    it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('refuses timeoutMs %p', (timeoutMs) => {
      expect(() => defineRuntimeTool({ ...base, timeoutMs })).toThrow(
        CORE_MESSAGES.timeoutMs(
          'billing_get_invoice',
          'runtime tool billing.getInvoice',
          timeoutMs,
        ),
      );
    });
  });
});

describe('isRuntimeTool', () => {
  it('refuses values that are not runtime tools', () => {
    expect(isRuntimeTool({ ...base, kind: 'class' })).toBe(false);
    expect(isRuntimeTool(null)).toBe(false);
    expect(isRuntimeTool(() => null)).toBe(false);
  });
});
