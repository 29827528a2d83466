import { z } from 'zod';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';

/** A JSON Schema document, frozen. */
export type JsonSchema = Readonly<Record<string, unknown>>;

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

/** Whether a value is a Zod schema (of any copy of zod 4). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as any)._zod?.def?.type === 'string' &&
    typeof (value as any).safeParse === 'function'
  );
}

/** Whether a value is a Zod object schema: the only input schema a tool may have. */
export function isObjectSchema(value: unknown): value is z.ZodObject<any, any> {
  return isZodSchema(value) && (value as any)._zod.def.type === 'object';
}
