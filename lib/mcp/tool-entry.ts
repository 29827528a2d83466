import type { Tool } from '@modelcontextprotocol/server';
import type { ToolDescriptor } from '../core/manifest.js';
import type { McpEra } from './eras/era.js';

/**
 * The `tools/list` entry of a tool on an era. A 2025-era `outputSchema` must have an object
 * root, so a non-object output schema is advertised wrapped as `{ result }` there — the same
 * wrap the SDK applies to such a tool's `structuredContent` on that era.
 */
export function toMcpTool(descriptor: ToolDescriptor, era: McpEra): Tool {
  const { title, ...hints } = descriptor.annotations;
  const output = descriptor.outputSchema;
  const outputSchema =
    output === undefined || !era.wrapsOutputSchema || output.type === 'object'
      ? output
      : wrapResult(output);
  return {
    name: descriptor.name,
    ...(title !== undefined && { title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema as Tool['inputSchema'],
    ...(outputSchema !== undefined && { outputSchema: outputSchema as Tool['outputSchema'] }),
    annotations: { ...(title !== undefined && { title }), ...hints },
    ...(descriptor.icons !== undefined && { icons: descriptor.icons as Tool['icons'] }),
    ...(descriptor._meta !== undefined && { _meta: descriptor._meta as Tool['_meta'] }),
    ...(descriptor.task !== undefined &&
      era.listsTaskSupport && { execution: { taskSupport: descriptor.task } }),
  };
}

function wrapResult(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema, ...rest } = schema;
  return {
    ...($schema !== undefined && { $schema }),
    type: 'object',
    properties: { result: rest },
    required: ['result'],
  };
}
