import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';

/** A JSON Schema document, frozen. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * A plain JSON Schema document used as a schema (draft 2020-12 unless its `$schema` names
 * draft-07 or 2019-09): listed as written and validated by Ajv, configured as the MCP SDK
 * configures it.
 *
 * @example
 * input: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
 */
export interface JsonSchemaDocument {
  readonly '~standard'?: never;
  readonly [keyword: string]: unknown;
}

/**
 * A schema toolwright accepts wherever it takes one: a Zod schema (the default), a schema of any
 * other Standard Schema library (Valibot, ArkType, …) or a plain {@link JsonSchemaDocument}. The
 * JSON Schema MCP lists comes from Zod, from the library's Standard JSON Schema interface, or
 * from the document itself; a Standard Schema without one needs {@link withJsonSchema}.
 */
export type ToolSchema = StandardSchemaV1 | JsonSchemaDocument;

/** The value a schema gives the handler: its output type (unknown for a plain JSON Schema). */
export type SchemaOutput<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : unknown;

/** The value a schema accepts: its input type (unknown for a plain JSON Schema). */
export type SchemaInput<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferInput<S> : unknown;

/**
 * A Standard Schema with the JSON Schema MCP lists for it, for a library that has no Standard
 * JSON Schema interface of its own: the result validates with `schema` and lists `jsonSchema`
 * (for both directions).
 *
 * @example
 * const Query = withJsonSchema(mySchema, {
 *   type: 'object',
 *   properties: { q: { type: 'string' } },
 *   required: ['q'],
 * });
 */
export function withJsonSchema<S extends StandardSchemaV1>(
  schema: S,
  jsonSchema: JsonSchemaDocument,
): S & StandardJSONSchemaV1<SchemaInput<S>, SchemaOutput<S>> {
  if (!isStandardSchema(schema)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.withJsonSchemaNotStandard());
  }
  if (!isJsonSchemaDocument(jsonSchema)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.withJsonSchemaNotDocument());
  }
  const document = deepFreeze(structuredClone(jsonSchema));
  const standard = schema['~standard'];
  return Object.freeze({
    '~standard': Object.freeze({
      version: standard.version,
      vendor: standard.vendor,
      validate: (value: unknown, options?: StandardSchemaV1.Options) =>
        standard.validate(value, options),
      ...(standard.types && { types: standard.types }),
      jsonSchema: Object.freeze({ input: () => document, output: () => document }),
    }),
  }) as unknown as S & StandardJSONSchemaV1<SchemaInput<S>, SchemaOutput<S>>;
}

const cache = {
  input: new WeakMap<object, JsonSchema>(),
  output: new WeakMap<object, JsonSchema>(),
};

/** Freezes a value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether a schema is being converted for what a caller sends (`input`) or receives (`output`). */
export type SchemaDirection = 'input' | 'output';

/** What to say about each kind of part zod reports as having no JSON Schema form. */
const UNREPRESENTABLE: Readonly<
  Record<string, (io: SchemaDirection, zodMessage: string) => string>
> = {
  date: () => 'z.date() has no JSON Schema form; use z.iso.datetime() or z.string()',
  bigint: () => 'z.bigint() has no JSON Schema form; use z.number().int() or a numeric z.string()',
  map: () => 'z.map() has no JSON Schema form; use z.record() or an array of [key, value] tuples',
  set: () => 'z.set() has no JSON Schema form; use z.array()',
  symbol: () => 'z.symbol() has no JSON Schema form; JSON has no symbols',
  custom: () =>
    'z.custom() / z.instanceof() has no JSON Schema form; describe the value with JSON types (z.object(), z.string(), …)',
  function: () => 'a function has no JSON Schema form; JSON carries no functions',
  undefined: () =>
    'z.undefined() has no JSON Schema form; mark the field .optional() or use z.null()',
  void: (io) =>
    io === 'output'
      ? 'z.void() has no JSON Schema form; omit the output schema or use z.null()'
      : 'z.void() has no JSON Schema form; mark the field .optional() or use z.null()',
  nan: () => 'z.nan() has no JSON Schema form; JSON has no NaN',
  literal: (_io, message) =>
    message.includes('undefined')
      ? 'z.literal(undefined) has no JSON Schema form; mark the field .optional()'
      : 'a bigint literal has no JSON Schema form; use a number literal',
  transform: (io) =>
    io === 'output'
      ? "a transform's output has no JSON Schema form; end it with .pipe(<schema of its result>)"
      : 'a bare z.transform() has no JSON Schema form on input; transform a schema (z.string().transform(…)) or use z.preprocess(fn, schema)',
};

/**
 * A JSON Schema path as zod reports it (`['properties', 'items', 'items', 'properties', 'at']`)
 * in the notation of toolwright's messages: `.key` a property (`["odd key"]` when it is not an
 * identifier), `[]` an array element, `[n]` a tuple position, `.*` a record or catchall value,
 * `.(key)` a record key, `|n` the n-th (from 0) option of a union, `&n` a side of an intersection.
 */
export function schemaPathNotation(root: string, path: readonly (string | number)[]): string {
  let notation = root;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const next = path[i + 1];
    switch (segment) {
      case 'properties':
        notation += /^[A-Za-z_$][\w$]*$/.test(String(next))
          ? `.${String(next)}`
          : `[${JSON.stringify(String(next))}]`;
        i++;
        break;
      case 'items':
      case 'additionalItems':
        notation += '[]';
        break;
      case 'prefixItems':
        notation += `[${String(next)}]`;
        i++;
        break;
      case 'additionalProperties':
        notation += '.*';
        break;
      case 'patternProperties':
        notation += '.*';
        i++;
        break;
      case 'propertyNames':
        notation += '.(key)';
        break;
      case 'anyOf':
      case 'oneOf':
        notation += `|${String(next)}`;
        i++;
        break;
      case 'allOf':
        notation += `&${String(next)}`;
        i++;
        break;
      default:
        notation += `/${String(segment)}`;
    }
  }
  return notation;
}

/** The zod-reported kinds that only lose an annotation (the schema itself stays exact): kept. */
const ANNOTATION_ONLY: ReadonlySet<string> = new Set(['catch']);

/**
 * The JSON Schema (draft 2020-12) of a Zod schema, converted once by zod's own `z.toJSONSchema`
 * and frozen; later calls return the same object.
 *
 * MCP profile check: a part JSON Schema cannot express (`z.date()`, `z.bigint()`, `z.map()`,
 * `z.set()`, `z.symbol()`, `z.custom()`/`z.instanceof()`, a function, `z.undefined()`/`z.void()`,
 * `z.nan()`, a transform in the direction converted, …) would be advertised as `{}`, which no JSON
 * client can satisfy; it is refused with a `ToolsConfigurationError` naming `owner`, the direction,
 * the path inside the schema (see {@link schemaPathNotation}) and what to use instead. The path is
 * the one zod itself reports, at the first such part met.
 */
export function toJsonSchema(
  schema: z.ZodType,
  io: SchemaDirection = 'input',
  owner?: string,
): JsonSchema {
  const cached = cache[io].get(schema);
  if (cached) return cached;
  let converted: JsonSchema;
  try {
    converted = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: ({ zodSchema, path, message }) => {
        const kind = zodSchema._zod.def.type;
        if (ANNOTATION_ONLY.has(kind)) return 'any';
        const reason = UNREPRESENTABLE[kind]?.(io, message) ?? `${message} (zod type "${kind}")`;
        throw new ToolsConfigurationError(
          CORE_MESSAGES.unrepresentable(owner, io, schemaPathNotation(io, path), reason),
        );
      },
    }) as JsonSchema;
  } catch (error) {
    if (error instanceof ToolsConfigurationError) throw error;
    throw new ToolsConfigurationError(
      CORE_MESSAGES.unconvertible(owner, io, (error as Error)?.message ?? String(error)),
      { cause: error },
    );
  }
  const document = deepFreeze(converted);
  cache[io].set(schema, document);
  return document;
}

/** Whether a value implements Standard Schema (Zod 4, Valibot, ArkType, …). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof standard?.validate === 'function'
  );
}

// The keywords of JSON Schema's applicator and validation vocabularies, and the core ones a
// document starts with: a plain object with none of them is not taken for a schema.
const JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  ...['$schema', '$ref', '$defs', 'definitions', 'type', 'enum', 'const', 'properties'],
  ...['required', 'additionalProperties', 'patternProperties', 'items', 'prefixItems'],
  ...['anyOf', 'oneOf', 'allOf', 'not', 'if', 'minimum', 'maximum', 'minLength', 'maxLength'],
  ...['pattern', 'format', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
]);

/**
 * Whether a value is a plain JSON Schema document: a plain object without `~standard` that uses
 * at least one JSON Schema keyword (`type`, `properties`, `anyOf`, `$ref`, …), so that a stray
 * object (a Zod shape, a typo) is refused rather than taken for a schema that accepts anything.
 */
export function isJsonSchemaDocument(value: unknown): value is JsonSchemaDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || '~standard' in value) return false;
  return Object.keys(value).some((key) => JSON_SCHEMA_KEYWORDS.has(key));
}

/** Whether a value is a schema toolwright accepts (see {@link ToolSchema}). */
export function isToolSchema(value: unknown): value is ToolSchema {
  return isStandardSchema(value) || isJsonSchemaDocument(value);
}

/**
 * The JSON Schema MCP lists for any {@link ToolSchema}, frozen and computed once per schema and
 * direction: Zod's by {@link toJsonSchema}; another library's from its Standard JSON Schema
 * interface (draft 2020-12); a plain document as it is. A Standard Schema without a JSON Schema
 * is refused with a `ToolsConfigurationError` naming `owner` and the fix.
 */
export function jsonSchemaOf(
  schema: ToolSchema,
  io: SchemaDirection = 'input',
  owner?: string,
): JsonSchema {
  if (isZodSchema(schema)) return toJsonSchema(schema, io, owner);
  const cached = cache[io].get(schema);
  if (cached) return cached;
  let document: JsonSchema;
  if (!isStandardSchema(schema)) {
    document = deepFreeze(structuredClone(schema as Record<string, unknown>));
  } else {
    const standard = schema['~standard'] as Partial<StandardJSONSchemaV1.Props>;
    if (typeof standard.jsonSchema?.[io] !== 'function') {
      throw new ToolsConfigurationError(
        CORE_MESSAGES.noJsonSchema(owner, io, String(schema['~standard'].vendor)),
      );
    }
    try {
      document = deepFreeze(structuredClone(standard.jsonSchema[io]({ target: 'draft-2020-12' })));
    } catch (error) {
      throw new ToolsConfigurationError(
        CORE_MESSAGES.unconvertible(owner, io, (error as Error)?.message ?? String(error)),
        { cause: error },
      );
    }
  }
  cache[io].set(schema, document);
  return document;
}

/** The property names of an object schema, from its JSON Schema's `properties`. */
export function propertyNames(schema: ToolSchema, owner?: string): string[] {
  const { properties } = jsonSchemaOf(schema, 'input', owner) as { properties?: object };
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** Whether a value is a Zod schema (of any copy of zod 4). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as any)._zod?.def?.type === 'string' &&
    typeof (value as any).safeParse === 'function'
  );
}

/** Whether a value is a Zod object schema. */
export function isZodObjectSchema(value: unknown): value is z.ZodObject<any, any> {
  return isZodSchema(value) && (value as any)._zod.def.type === 'object';
}

/**
 * Whether a schema describes an object, the only input a tool (and the only variables or
 * arguments a template or prompt) may have: a Zod object, or a schema whose JSON Schema has
 * `type: "object"`. Converting may refuse the schema (see {@link jsonSchemaOf}).
 */
export function isObjectSchema(value: unknown, owner?: string): value is ToolSchema {
  if (isZodSchema(value)) return (value as any)._zod.def.type === 'object';
  return isToolSchema(value) && jsonSchemaOf(value, 'input', owner).type === 'object';
}
