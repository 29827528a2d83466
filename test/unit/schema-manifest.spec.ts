import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  describeTool,
  isObjectSchema,
  isZodSchema,
  toJsonSchema,
} from '../../lib/core/index.js';
import { makeTool, unfrozenPaths } from './support.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

describe('toJsonSchema', () => {
  const nested = z.object({
    id: z.string().describe('The invoice id'),
    lines: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })),
    status: z.enum(['draft', 'paid']),
    meta: z.record(z.string(), z.object({ note: z.string().optional() })),
  });

  it('produces a draft 2020-12 document', () => {
    const schema = toJsonSchema(nested);
    expect(schema.$schema).toBe(DRAFT_2020_12);
    expect(schema).toMatchObject({
      type: 'object',
      required: ['id', 'lines', 'status', 'meta'],
      properties: {
        id: { type: 'string', description: 'The invoice id' },
        lines: {
          type: 'array',
          items: { type: 'object', properties: { sku: { type: 'string' } } },
        },
        status: { enum: ['draft', 'paid'] },
      },
    });
  });

  it('freezes the document deeply', () => {
    const schema = toJsonSchema(nested);
    expect(unfrozenPaths(schema)).toEqual([]);
    expect(() => {
      (schema as any).properties.lines.items.properties.sku.type = 'number';
    }).toThrow(TypeError);
  });

  it('converts once per schema and returns the same object afterwards', () => {
    const schema = z.object({ a: z.string() });
    const first = toJsonSchema(schema);
    expect(toJsonSchema(schema)).toBe(first);
    expect(toJsonSchema(schema, 'input')).toBe(first);
    // A structurally equal but distinct schema is its own document.
    expect(toJsonSchema(z.object({ a: z.string() }))).not.toBe(first);
    expect(toJsonSchema(z.object({ a: z.string() }))).toEqual(first);
  });

  it('keeps input and output documents apart', () => {
    const schema = z.object({ page: z.number().default(1) });
    const input = toJsonSchema(schema, 'input');
    const output = toJsonSchema(schema, 'output');
    expect(input).not.toBe(output);
    expect(input.required ?? []).not.toContain('page');
    expect(output.required).toContain('page');
    expect(toJsonSchema(schema, 'output')).toBe(output);
    expect(unfrozenPaths(output)).toEqual([]);
  });

  it('leaves parts JSON Schema cannot express open instead of refusing them', () => {
    const schema = z.object({
      at: z.date(),
      length: z.string().transform((value) => value.length),
    });
    expect(() => toJsonSchema(schema)).not.toThrow();
    expect(() => toJsonSchema(schema, 'output')).not.toThrow();
    expect((toJsonSchema(schema).properties as Record<string, unknown>).at).toEqual({});
  });
});

describe('isZodSchema and isObjectSchema', () => {
  it('recognise Zod schemas and object schemas', () => {
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema(z.object({}))).toBe(true);
    expect(isObjectSchema(z.object({}))).toBe(true);
    expect(isObjectSchema(z.strictObject({}))).toBe(true);
    expect(isObjectSchema(z.looseObject({}))).toBe(true);
  });

  it.each([
    ['a string schema', z.string()],
    ['an array schema', z.array(z.object({}))],
    ['a union', z.union([z.object({}), z.object({ a: z.string() })])],
    ['an optional object', z.object({}).optional()],
    ['a plain object', { type: 'object' }],
    ['a look-alike', { _zod: { def: { type: 'object' } } }],
    ['null', null],
  ])('isObjectSchema refuses %s', (_label, value) => {
    expect(isObjectSchema(value)).toBe(false);
  });

  it('isZodSchema refuses non-schemas', () => {
    expect(isZodSchema({ _zod: { def: { type: 'string' } } })).toBe(false);
    expect(isZodSchema({ safeParse: () => ({}) })).toBe(false);
    expect(isZodSchema(undefined)).toBe(false);
  });
});

describe('describeTool', () => {
  it('describes a tool with the documented fields, frozen, schemas from the cache', () => {
    const input = z.object({ id: z.string() });
    const output = z.object({ ok: z.boolean() });
    const tool = makeTool({
      service: 'billing',
      action: 'voidInvoice',
      method: 'DELETE',
      input,
      output,
      annotations: { title: 'Void' },
    });
    const descriptor = describeTool(tool);
    expect(descriptor).toStrictEqual({
      name: 'billing_void_invoice',
      description: 'billing voidInvoice',
      identity: tool.identity,
      transports: tool.transports,
      annotations: { readOnlyHint: false, destructiveHint: true, title: 'Void' },
      inputSchema: toJsonSchema(input, 'input'),
      outputSchema: toJsonSchema(output, 'output'),
    });
    expect(descriptor.inputSchema).toBe(toJsonSchema(input, 'input'));
    expect(descriptor.outputSchema).toBe(toJsonSchema(output, 'output'));
    expect(Object.isFrozen(descriptor)).toBe(true);
    // Nothing of how the tool runs leaks into its description.
    expect('handler' in descriptor).toBe(false);
    expect('origin' in descriptor).toBe(false);
  });

  it('has no outputSchema key for a tool without output', () => {
    const descriptor = describeTool(makeTool());
    expect(Object.keys(descriptor)).not.toContain('outputSchema');
  });

  it('allows a non-object output schema', () => {
    const descriptor = describeTool(makeTool({ output: z.array(z.string()) }));
    expect(descriptor.outputSchema).toMatchObject({ $schema: DRAFT_2020_12, type: 'array' });
  });
});

describe('the manifest of an invoker', () => {
  it('is deeply frozen, JSON Schemas included, and in draft 2020-12', () => {
    const tools = [
      makeTool({
        service: 'billing',
        action: 'getInvoice',
        method: 'GET',
        input: z.object({ id: z.string(), filter: z.object({ from: z.string().optional() }) }),
        output: z.object({ lines: z.array(z.object({ sku: z.string() })) }),
        transports: ['MCP', 'CLI'],
        annotations: { title: 'Get' },
      }),
      makeTool({ service: 'health', action: 'ping', method: 'GET' }),
    ];
    const manifest = createToolInvoker(tools).manifest('MCP');
    expect(manifest).toHaveLength(2);
    expect(unfrozenPaths(manifest)).toEqual([]);
    for (const descriptor of manifest) {
      expect(descriptor.inputSchema.$schema).toBe(DRAFT_2020_12);
      if (descriptor.outputSchema) expect(descriptor.outputSchema.$schema).toBe(DRAFT_2020_12);
    }
    expect(manifest[0].outputSchema).toBeDefined();
  });
});
