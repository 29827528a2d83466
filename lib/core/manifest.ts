import type { ToolSpec } from './runtime-tool.js';
import { toJsonSchema, type JsonSchema } from './schema.js';
import type { ToolAnnotations, ToolIdentity, ToolTransport } from './types.js';

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
}

/**
 * The frozen descriptor of a tool. Runs for every tool when an invoker is created, so a schema
 * JSON Schema cannot express is refused at composition (`ToolsConfigurationError`, see
 * {@link toJsonSchema}).
 */
export function describeTool(spec: ToolSpec): ToolDescriptor {
  const owner = `Tool "${spec.name}" (${spec.origin})`;
  const descriptor: ToolDescriptor = {
    name: spec.name,
    description: spec.description,
    identity: spec.identity,
    transports: spec.transports,
    annotations: spec.annotations,
    inputSchema: toJsonSchema(spec.input, 'input', owner),
    ...(spec.output !== undefined && { outputSchema: toJsonSchema(spec.output, 'output', owner) }),
    ...(spec.scopes !== undefined && { scopes: spec.scopes }),
  };
  return Object.freeze(descriptor);
}
