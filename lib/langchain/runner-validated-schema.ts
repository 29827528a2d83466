import { z } from 'zod';
import type { JsonSchema } from '../core/schema.js';

/**
 * The `schema` a LangChain tool of {@link createLangChainTools} carries: a Zod schema that
 * accepts any value and holds the tool's cached JSON Schema as its metadata.
 *
 * LangChain validates a tool's input before calling it (a JSON Schema with its bundled
 * validator, a Zod schema by parsing) and throws its own `ToolInputParsingException`, which the
 * model never sees as our envelope and our hooks never see at all. The runner must be the one
 * validator. Every LangChain converter — core's `toJsonSchema`, and each provider's Zod branch —
 * turns a Zod schema into JSON Schema with zod's `toJSONSchema`, which writes registered
 * metadata as keywords: the model gets exactly the tool's JSON Schema, and LangChain's parse
 * hands the arguments through untouched.
 */
export function runnerValidatedSchema(jsonSchema: JsonSchema): z.ZodUnknown {
  // zod writes its own `$schema`; the rest are the tool's keywords, copied so that a converter
  // that edits its result never meets the frozen cached document.
  const { $schema: _dialect, ...keywords } = jsonSchema;
  return z.unknown().meta(structuredClone(keywords));
}
