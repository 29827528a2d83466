import { describe, expect, it } from '@jest/globals';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { z } from 'zod';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { ToolsConfigurationError } from '../../lib/core/errors.js';
import { createToolInvoker, defineRuntimeTool } from '../../lib/core/index.js';
import { parserOf, SchemaValidationError } from '../../lib/core/schema-parse.js';
import { isJsonSchemaDocument, jsonSchemaOf, withJsonSchema } from '../../lib/core/schema.js';

/** A hand-written Standard Schema: a string at least `min` long, checked asynchronously. */
function asyncString(min: number): StandardSchemaV1<string, string> {
  return {
    '~standard': {
      version: 1,
      vendor: 'hand',
      validate: async (value) =>
        typeof value === 'string' && value.length >= min
          ? { value }
          : { issues: [{ message: `at least ${min}`, path: [{ key: 'deep' }, 0] }] },
    },
  };
}

describe('parserOf', () => {
  it("uses Zod's own safeParse result as it is", () => {
    const schema = z.object({ a: z.number() });
    const parsed = parserOf(schema)({ a: 1 });
    expect(parsed).toEqual(schema.safeParse({ a: 1 }));
    expect(parserOf(schema)).toBe(parserOf(schema));
  });

  it('waits for an asynchronous Standard Schema and keeps its issues and paths', async () => {
    const parse = parserOf(asyncString(3));
    await expect(parse('abcd')).resolves.toEqual({ success: true, data: 'abcd' });
    const failed = (await parse('a')) as { success: false; error: SchemaValidationError };
    expect(failed.success).toBe(false);
    expect(failed.error).toBeInstanceOf(SchemaValidationError);
    expect(failed.error.issues).toEqual([{ message: 'at least 3', path: [{ key: 'deep' }, 0] }]);
  });

  it('validates a plain JSON Schema with formats, each error with its path and keyword', () => {
    const parse = parserOf({
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, 'a/b': { type: 'integer' } },
      required: ['email'],
    });
    expect(parse({ email: 'x@example.com' })).toEqual({
      success: true,
      data: { email: 'x@example.com' },
    });
    const failed = parse({ email: 'not an address', 'a/b': 1.5 }) as any;
    expect(failed.error.issues).toEqual([
      { message: 'must match format "email"', path: ['email'], code: 'format' },
      { message: 'must be integer', path: ['a/b'], code: 'type' },
    ]);
    expect((parse({}) as any).error.issues).toEqual([
      { message: "must have required property 'email'", path: ['email'], code: 'required' },
    ]);
  });

  it('follows the dialect a document declares (draft-07 items as a tuple)', () => {
    const tuple = parserOf({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }, { type: 'number' }],
    });
    expect(tuple(['a', 1])).toMatchObject({ success: true });
    expect(tuple(['a', 'b'])).toMatchObject({ success: false });
  });

  it('compiles two documents of one $id once, as the SDK does, instead of refusing the second', () => {
    const document = () => ({
      $id: 'https://example.com/schemas/point',
      type: 'object',
      properties: { x: { type: 'number' } },
    });
    const first = parserOf(document());
    const second = parserOf(document());
    expect(second({ x: 'no' })).toMatchObject({ success: false });
    expect(first({ x: 1 })).toMatchObject({ success: true });
  });

  it('refuses a JSON Schema the validator cannot compile, naming its owner', () => {
    expect(() => parserOf({ type: 'no-such-type' }, 'Tool "t" (here)')).toThrow(
      ToolsConfigurationError,
    );
    expect(() => parserOf({ type: 'no-such-type' }, 'Tool "t" (here)')).toThrow(
      /Tool "t" \(here\): its input schema is not a valid JSON Schema/,
    );
  });
});

describe('the issues a caller sees from any library', () => {
  it('name the path of a Standard Schema issue, its segments objects or keys', async () => {
    const tool = defineRuntimeTool({
      description: 'Check a name',
      identity: { serviceName: 'names', action: 'check', method: 'GET' },
      input: withJsonSchema(
        {
          '~standard': {
            version: 1,
            vendor: 'hand',
            validate: () => ({ issues: [{ message: 'taken', path: [{ key: 'who' }, 'first'] }] }),
          },
        } as StandardSchemaV1<Record<string, unknown>>,
        { type: 'object' },
      ),
      handler: () => null,
    });
    const result = await createToolInvoker([tool]).invoke('names_check', {}, { transport: 'MCP' });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Invalid input: who.first: taken',
        details: { issues: [{ path: 'who.first', code: 'invalid', message: 'taken' }] },
      },
    });
  });
});

describe('withJsonSchema and jsonSchemaOf', () => {
  it('lists the document given, frozen, and validates with the schema', () => {
    const schema = withJsonSchema(v.object({ q: v.string() }), {
      type: 'object',
      properties: { q: { type: 'string' } },
    });
    const listed = jsonSchemaOf(schema);
    expect(listed).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
    expect(Object.isFrozen(listed)).toBe(true);
    expect(jsonSchemaOf(schema)).toBe(listed);
    expect(schema['~standard'].validate({ q: 1 })).toMatchObject({ issues: [{}] });
  });

  it('refuses what is not a Standard Schema or not a JSON Schema', () => {
    expect(() => withJsonSchema({} as never, { type: 'object' })).toThrow(
      CORE_MESSAGES.withJsonSchemaNotStandard(),
    );
    expect(() => withJsonSchema(v.string(), 'string' as never)).toThrow(
      CORE_MESSAGES.withJsonSchemaNotDocument(),
    );
  });

  it('names the library and the fix when a Standard Schema has no JSON Schema', () => {
    expect(() => jsonSchemaOf(v.string(), 'output', 'Tool "t" (here)')).toThrow(
      CORE_MESSAGES.noJsonSchema('Tool "t" (here)', 'output', 'valibot'),
    );
  });

  it('takes a plain object for a JSON Schema only when it uses a JSON Schema keyword', () => {
    expect(isJsonSchemaDocument({ type: 'string' })).toBe(true);
    expect(isJsonSchemaDocument({ anyOf: [] })).toBe(true);
    expect(isJsonSchemaDocument({})).toBe(false);
    expect(isJsonSchemaDocument({ id: z.string() })).toBe(false);
    expect(isJsonSchemaDocument(z.object({}))).toBe(false);
    expect(isJsonSchemaDocument([{ type: 'string' }])).toBe(false);
  });
});
