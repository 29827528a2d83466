import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { z } from 'zod';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import { isZodSchema, jsonSchemaOf, type SchemaDirection, type ToolSchema } from './schema.js';

/** One problem a schema found: Zod's issues and Standard Schema's both have this shape. */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>;
  readonly code?: string;
}

/**
 * What parsing a value gives, in the shape of Zod's `safeParse` result, so that a Zod schema's
 * result is used as it is and costs nothing more than Zod itself.
 */
export type SchemaParse =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/** Parses a value by a schema: synchronously unless the schema itself is asynchronous. */
export type SchemaParser = (value: unknown) => SchemaParse | Promise<SchemaParse>;

/**
 * The failures of a schema that is not Zod, as the value hooks receive (where a Zod schema's
 * failure is its `ZodError`).
 */
export class SchemaValidationError extends Error {
  override readonly name = 'SchemaValidationError';

  constructor(readonly issues: readonly SchemaIssue[]) {
    super(issues.map((issue) => issue.message).join('; '));
  }
}

const parsers = new WeakMap<object, SchemaParser>();

/**
 * The parser of a schema, made once per schema: Zod's own `safeParse` (its async form only for a
 * schema with async parts), a Standard Schema's `validate`, or Ajv for a plain JSON Schema.
 */
export function parserOf(
  schema: ToolSchema,
  owner?: string,
  io: SchemaDirection = 'input',
): SchemaParser {
  let parser = parsers.get(schema);
  if (parser) return parser;
  if (isZodSchema(schema)) parser = zodParser(schema);
  else if ('~standard' in schema) parser = standardParser(schema as StandardSchemaV1);
  else parser = jsonSchemaParser(schema, owner, io);
  parsers.set(schema, parser);
  return parser;
}

function zodParser(schema: z.ZodType): SchemaParser {
  return (value) => {
    try {
      return schema.safeParse(value);
    } catch (error) {
      // A schema with async refinements cannot parse synchronously.
      if (error instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(value);
      throw error;
    }
  };
}

function standardParser(schema: StandardSchemaV1): SchemaParser {
  const standard = schema['~standard'];
  const settle = (result: StandardSchemaV1.Result<unknown>): SchemaParse =>
    result.issues
      ? { success: false, error: new SchemaValidationError(result.issues) }
      : { success: true, data: result.value };
  return (value) => {
    const result = standard.validate(value);
    return result instanceof Promise ? result.then(settle) : settle(result);
  };
}

// The MCP SDK's default validator is Ajv with these options and ajv-formats, one engine per
// dialect a schema's `$schema` declares; validation here is the same, with each error kept.
const AJV_OPTIONS = {
  strict: false,
  validateFormats: true,
  validateSchema: false,
  allErrors: true,
};
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ??
  formatsModule) as unknown as (ajv: Ajv) => void;
const engines = new Map<string, Ajv>();

function engineFor(schema: ToolSchema): Ajv {
  const declared = String((schema as { $schema?: unknown }).$schema ?? '');
  const dialect = /draft-0[67]/.test(declared)
    ? 'draft-07'
    : declared.includes('2019-09')
      ? '2019-09'
      : '2020-12';
  let engine = engines.get(dialect);
  if (!engine) {
    const Engine = dialect === 'draft-07' ? Ajv : dialect === '2019-09' ? Ajv2019 : Ajv2020;
    engine = new Engine(AJV_OPTIONS);
    addFormats(engine);
    engines.set(dialect, engine);
  }
  return engine;
}

function jsonSchemaParser(
  schema: ToolSchema,
  owner: string | undefined,
  io: SchemaDirection,
): SchemaParser {
  let validate: ValidateFunction;
  try {
    const engine = engineFor(schema);
    const document = jsonSchemaOf(schema, io, owner);
    // A document with an `$id` is compiled once per engine, as the SDK's validator does: a second
    // compile of the same `$id` would be refused.
    const id = typeof document.$id === 'string' ? document.$id : undefined;
    validate = (id && engine.getSchema(id)) || engine.compile(document as object);
  } catch (error) {
    throw new ToolsConfigurationError(
      CORE_MESSAGES.invalidJsonSchema(owner, io, (error as Error)?.message),
      { cause: error },
    );
  }
  return (value) =>
    validate(value)
      ? { success: true, data: value }
      : { success: false, error: new SchemaValidationError(validate.errors!.map(toIssue)) };
}

function toIssue(error: ErrorObject): SchemaIssue {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  return { message: error.message ?? 'is invalid', path, code: error.keyword };
}
