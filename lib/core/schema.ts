import { z } from 'zod';

/** A JSON Schema document, frozen. */
export type JsonSchema = Readonly<Record<string, unknown>>;

const cache = {
  input: new WeakMap<object, JsonSchema>(),
  output: new WeakMap<object, JsonSchema>(),
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The JSON Schema (draft 2020-12) of a Zod schema, converted once by zod's own `z.toJSONSchema`
 * and frozen; later calls return the same object. Parts JSON Schema cannot express (a date, a
 * transform's output) are left open rather than refused.
 *
 * @example
 * toJsonSchema(z.object({ id: z.string() })); // { $schema: '…/2020-12/schema', type: 'object', … }
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const cached = cache[io].get(schema);
  if (cached) return cached;
  const document = deepFreeze(
    z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema,
  );
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
