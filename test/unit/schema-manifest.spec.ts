import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ToolsConfigurationError, createToolInvoker } from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { describeTool } from '../../lib/core/manifest.js';
import {
  isObjectSchema,
  isZodSchema,
  schemaPathNotation,
  toJsonSchema,
} from '../../lib/core/schema.js';
import { defineToolClass } from '../../lib/core/tool-class.js';
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
    const retype = () => {
      (schema as any).properties.lines.items.properties.sku.type = 'number';
    };
    expect(retype).toThrow(TypeError);
    expect(retype).toThrow("Cannot assign to read only property 'type' of object");
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

  it('refuses a part JSON Schema cannot express, with the path, and caches nothing for it', () => {
    const schema = z.object({ at: z.date() });
    const refusal = new ToolsConfigurationError(
      CORE_MESSAGES.unrepresentable(
        undefined,
        'output',
        'output.at',
        'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
      ),
    );
    expect(() => toJsonSchema(schema, 'output')).toThrow(refusal);
    expect(() => toJsonSchema(schema, 'output')).toThrow(refusal);
    expect(() => toJsonSchema(schema, 'output', 'Tool "x" (here)')).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          'Tool "x" (here)',
          'output',
          'output.at',
          'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
        ),
      ),
    );
  });

  it('keeps a transform on input (its input side is a schema) and refuses it on output', () => {
    const schema = z.object({ length: z.string().transform((value) => value.length) });
    expect(toJsonSchema(schema, 'input').properties).toEqual({ length: { type: 'string' } });
    expect(() => toJsonSchema(schema, 'output')).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          undefined,
          'output',
          'output.length',
          "a transform's output has no JSON Schema form; end it with .pipe(<schema of its result>)",
        ),
      ),
    );
  });
});

describe('schemaPathNotation', () => {
  it.each([
    [[], 'input'],
    [['properties', 'when'], 'input.when'],
    [['properties', 'items', 'items', 'properties', 'at'], 'input.items[].at'],
    [['properties', 'odd key'], 'input["odd key"]'],
    [['properties', 'pair', 'prefixItems', 1], 'input.pair[1]'],
    [['properties', 'byId', 'additionalProperties', 'properties', 'at'], 'input.byId.*.at'],
    [['properties', 'byId', 'patternProperties', '*'], 'input.byId.*'],
    [['properties', 'byId', 'propertyNames'], 'input.byId.(key)'],
    [['properties', 'either', 'anyOf', 1], 'input.either|1'],
    [['properties', 'kind', 'oneOf', 0, 'properties', 'at'], 'input.kind|0.at'],
    [['properties', 'both', 'allOf', 1, 'properties', 'at'], 'input.both&1.at'],
  ])('%j is %s', (path, expected) => {
    expect(schemaPathNotation('input', path as (string | number)[])).toBe(expected);
  });
});

describe('MCP profile checks at composition', () => {
  const owner = 'Tool "events_create" (runtime tool events.create)';
  const refusal = (io: 'input' | 'output', path: string, reason: string) =>
    new ToolsConfigurationError(
      CORE_MESSAGES.unrepresentable(
        owner,
        io,
        `${io}${path.startsWith('[') ? '' : '.'}${path}`,
        reason,
      ),
    );
  const compose = (overrides: Record<string, unknown>) => () =>
    createToolInvoker([makeTool({ service: 'events', action: 'create', ...overrides })]);

  const unrepresentable: [string, () => z.ZodType, string][] = [
    [
      'z.date()',
      () => z.date(),
      'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
    ],
    [
      'z.bigint()',
      () => z.bigint(),
      'z.bigint() has no JSON Schema form; use z.number().int() or a numeric z.string()',
    ],
    [
      'z.map()',
      () => z.map(z.string(), z.number()),
      'z.map() has no JSON Schema form; use z.record() or an array of [key, value] tuples',
    ],
    ['z.set()', () => z.set(z.string()), 'z.set() has no JSON Schema form; use z.array()'],
    ['z.symbol()', () => z.symbol(), 'z.symbol() has no JSON Schema form; JSON has no symbols'],
    [
      'z.custom()',
      () => z.custom<string>((value) => typeof value === 'string'),
      'z.custom() / z.instanceof() has no JSON Schema form; describe the value with JSON types (z.object(), z.string(), …)',
    ],
    [
      'z.instanceof()',
      () => z.instanceof(URL),
      'z.custom() / z.instanceof() has no JSON Schema form; describe the value with JSON types (z.object(), z.string(), …)',
    ],
    [
      'z.function()',
      () => z.function(),
      'a function has no JSON Schema form; JSON carries no functions',
    ],
    [
      'z.undefined()',
      () => z.undefined(),
      'z.undefined() has no JSON Schema form; mark the field .optional() or use z.null()',
    ],
    ['z.nan()', () => z.nan(), 'z.nan() has no JSON Schema form; JSON has no NaN'],
    [
      'z.literal(undefined)',
      () => z.literal(undefined),
      'z.literal(undefined) has no JSON Schema form; mark the field .optional()',
    ],
  ];

  describe.each(unrepresentable)('%s', (_label, make, reason) => {
    it('is refused in an input schema, at its path', () => {
      expect(compose({ input: z.object({ title: z.string(), when: make() }) })).toThrow(
        refusal('input', 'when', reason),
      );
    });

    it('is refused deep in an output schema, at its path', () => {
      const output = z.object({ items: z.array(z.object({ id: z.string(), at: make() })) });
      expect(compose({ output })).toThrow(refusal('output', 'items[].at', reason));
    });
  });

  it('refuses z.void() on input and as a whole output schema', () => {
    expect(compose({ input: z.object({ done: z.void() }) })).toThrow(
      refusal(
        'input',
        'done',
        'z.void() has no JSON Schema form; mark the field .optional() or use z.null()',
      ),
    );
    expect(compose({ output: z.void() })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          owner,
          'output',
          'output',
          'z.void() has no JSON Schema form; omit the output schema or use z.null()',
        ),
      ),
    );
  });

  it('refuses z.undefined() in a union and as an optional field: JSON has no undefined', () => {
    const reason =
      'z.undefined() has no JSON Schema form; mark the field .optional() or use z.null()';
    expect(compose({ input: z.object({ note: z.union([z.string(), z.undefined()]) }) })).toThrow(
      refusal('input', 'note|1', reason),
    );
    expect(compose({ input: z.object({ note: z.undefined().optional() }) })).toThrow(
      refusal('input', 'note', reason),
    );
  });

  it("refuses a transform's output side in an output schema", () => {
    expect(
      compose({ output: z.object({ at: z.string().transform((value) => new Date(value)) }) }),
    ).toThrow(
      refusal(
        'output',
        'at',
        "a transform's output has no JSON Schema form; end it with .pipe(<schema of its result>)",
      ),
    );
  });

  it('refuses a bare z.transform() in an input schema', () => {
    expect(compose({ input: z.object({ raw: z.transform((value) => String(value)) }) })).toThrow(
      refusal(
        'input',
        'raw',
        'a bare z.transform() has no JSON Schema form on input; transform a schema (z.string().transform(…)) or use z.preprocess(fn, schema)',
      ),
    );
  });

  it('names the path through records, tuples, unions, intersections and record keys', () => {
    const reason = 'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()';
    const cases: [z.ZodType, string][] = [
      [z.object({ byId: z.record(z.string(), z.object({ at: z.date() })) }), 'byId.*.at'],
      [z.object({ span: z.tuple([z.string(), z.date()]) }), 'span[1]'],
      [z.object({ when: z.union([z.string(), z.date()]) }), 'when|1'],
      [
        z.object({
          event: z.discriminatedUnion('kind', [
            z.object({ kind: z.literal('a'), at: z.date() }),
            z.object({ kind: z.literal('b') }),
          ]),
        }),
        'event|0.at',
      ],
      [z.object({ both: z.intersection(z.object({}), z.object({ at: z.date() })) }), 'both&1.at'],
      [z.object({ 'starts at': z.date() }), '["starts at"]'],
    ];
    for (const [output, path] of cases) {
      expect(compose({ output })).toThrow(refusal('output', path, reason));
    }
    expect(
      compose({
        output: z.record(
          z.string().transform((key) => key.trim()),
          z.string(),
        ),
      }),
    ).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          owner,
          'output',
          'output.(key)',
          "a transform's output has no JSON Schema form; end it with .pipe(<schema of its result>)",
        ),
      ),
    );
  });

  it('names the tool and the class method of a class tool', () => {
    class EventTools {
      create() {
        return {};
      }
    }
    defineToolClass(EventTools, {
      serviceName: 'events',
      tools: [
        {
          methodName: 'create',
          action: 'create',
          method: 'POST',
          description: 'Create an event',
          input: z.object({ when: z.date() }),
        },
      ],
    });
    expect(() => createToolInvoker([EventTools])).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.unrepresentable(
          'Tool "events_create" (EventTools.create)',
          'input',
          'input.when',
          'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
        ),
      ),
    );
  });

  it('is a ToolsConfigurationError', () => {
    let caught: unknown;
    try {
      compose({ input: z.object({ when: z.date() }) })();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolsConfigurationError);
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe('ToolsConfigurationError');
  });

  it('keeps representable schemas working, converted once', async () => {
    type Node = { name: string; children: Node[] };
    const Node: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const input = z.object({
      anything: z.any(),
      whatever: z.unknown(),
      note: z.string().optional(),
      page: z.number().default(1),
      code: z.string().transform((value) => value.toUpperCase()),
      raw: z.preprocess((value) => String(value), z.string()),
      // A codec's input side is a schema: an ISO string on the wire, a Date in the handler.
      when: z.codec(z.iso.datetime(), z.date(), {
        decode: (value) => new Date(value),
        encode: (date) => date.toISOString(),
      }),
      tree: Node.optional(),
      fallback: z.string().catch(() => {
        throw new Error('no static catch value');
      }),
    });
    const tools = [
      makeTool({ service: 'a', action: 'text', input, output: z.string(), handler: () => 'ok' }),
      makeTool({ service: 'a', action: 'list', output: z.array(z.object({ id: z.string() })) }),
      makeTool({
        service: 'a',
        action: 'length',
        output: z.object({
          n: z
            .string()
            .transform((value) => value.length)
            .pipe(z.number()),
        }),
        handler: () => ({ n: 'abc' }),
      }),
      makeTool({
        service: 'a',
        action: 'codec',
        output: z.object({
          n: z.codec(z.string(), z.number(), { decode: Number, encode: String }),
        }),
      }),
      makeTool({ service: 'a', action: 'tree', output: Node }),
    ];
    const invoker = createToolInvoker(tools);
    const [text, list, length, codec, tree] = invoker.manifest('MCP');
    expect(text.inputSchema).toBe(toJsonSchema(input, 'input'));
    expect(text.inputSchema.properties).toEqual({
      anything: {},
      whatever: {},
      note: { type: 'string' },
      page: { type: 'number', default: 1 },
      code: { type: 'string' },
      raw: { type: 'string' },
      when: { type: 'string', format: 'date-time', pattern: expect.any(String) },
      tree: { $ref: '#/$defs/__schema0' },
      fallback: { type: 'string' },
    });
    expect(text.inputSchema.required).toEqual([
      'anything',
      'whatever',
      'code',
      'raw',
      'when',
      'fallback',
    ]);
    expect(text.outputSchema).toMatchObject({ type: 'string' });
    expect(list.outputSchema).toMatchObject({ type: 'array', items: { type: 'object' } });
    expect(length.outputSchema).toMatchObject({ properties: { n: { type: 'number' } } });
    expect(codec.outputSchema).toMatchObject({ properties: { n: { type: 'number' } } });
    expect(tree.outputSchema).toMatchObject({ properties: { children: { type: 'array' } } });
    await expect(invoker.invoke('a_length', {}, { transport: 'MCP' })).resolves.toEqual({
      ok: true,
      data: { n: 3 },
    });
  });
});

describe('isZodSchema and isObjectSchema', () => {
  it('recognise Zod schemas and object schemas', () => {
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema(z.object({}))).toBe(true);
    expect(isObjectSchema(z.object({}))).toBe(true);
    expect(isObjectSchema(z.strictObject({}))).toBe(true);
    expect(isObjectSchema(z.looseObject({}))).toBe(true);
    expect(isObjectSchema({ type: 'object', properties: { a: { type: 'string' } } })).toBe(true);
  });

  it.each([
    ['a string schema', z.string()],
    ['an array schema', z.array(z.object({}))],
    ['a union', z.union([z.object({}), z.object({ a: z.string() })])],
    ['an optional object', z.object({}).optional()],
    ['a JSON Schema of a string', { type: 'string' }],
    ['an object without JSON Schema keywords', { id: 'string' }],
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
