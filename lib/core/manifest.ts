import type { ToolSpec } from './runtime-tool.js';
import { assertElicitationSchema } from './asking.js';
import { jsonSchemaOf, type JsonSchema } from './schema.js';
import type { ToolAnnotations, ToolIdentity, ToolTaskSupport, ToolTransport } from './types.js';
import type { OperationIcon } from './operations.js';

/**
 * A tool as clients and listings see it. Frozen; the JSON Schemas are computed once per schema.
 *
 * @example
 * invoker.manifest('MCP').map((d) => d.name);
 */
export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly identity: ToolIdentity;
  readonly transports: readonly ToolTransport[];
  readonly annotations: Readonly<ToolAnnotations>;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** The OAuth scopes a caller must hold, when the tool requires any. */
  readonly scopes?: readonly string[];
  /** Its tags, when it has any. */
  readonly tags?: readonly string[];
  /** What the tool may ask the user: a confirmation, and the JSON Schemas it may elicit with. */
  readonly asks?: { readonly confirm: boolean; readonly elicit: readonly JsonSchema[] };
  /** Whether MCP clients may (`optional`) or must (`required`) run it as a task. */
  readonly task?: ToolTaskSupport;
  /** Icons clients may show. */
  readonly icons?: readonly OperationIcon[];
  /** Metadata MCP lists carry (`_meta`). */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * The frozen descriptor of a tool. Runs for every tool when an invoker is created, so a schema
 * JSON Schema cannot express is refused at composition (`ToolsConfigurationError`, see
 * {@link jsonSchemaOf}).
 */
export function describeTool(spec: ToolSpec): ToolDescriptor {
  const owner = `Tool "${spec.name}" (${spec.origin})`;
  const descriptor: ToolDescriptor = {
    name: spec.name,
    description: spec.description,
    identity: spec.identity,
    transports: spec.transports,
    annotations: spec.annotations,
    inputSchema: jsonSchemaOf(spec.input, 'input', owner),
    ...(spec.output !== undefined && { outputSchema: jsonSchemaOf(spec.output, 'output', owner) }),
    ...(spec.scopes !== undefined && { scopes: spec.scopes }),
    ...(spec.tags !== undefined && { tags: spec.tags }),
    ...(spec.task !== undefined && { task: spec.task }),
    ...(spec.icons !== undefined && { icons: spec.icons }),
    ...(spec._meta !== undefined && { _meta: spec._meta }),
    ...(spec.asks !== undefined && {
      asks: Object.freeze({
        confirm: spec.asks.confirm === true,
        elicit: Object.freeze(
          (spec.asks.elicit ?? []).map((schema) => assertElicitationSchema(schema, owner)),
        ),
      }),
    }),
  };
  return Object.freeze(descriptor);
}
