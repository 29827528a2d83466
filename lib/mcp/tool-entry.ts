import type { Tool } from '@modelcontextprotocol/server';
import type { ToolDescriptor } from '../core/manifest.js';
import type { McpEra } from './eras/era.js';

/** The endpoint's sign-in (`mcp.auth`), as far as a tool's listing says it. */
export interface McpSignIn {
  /** The scopes every request needs (`mcp.auth.requiredScopes`). */
  readonly requiredScopes: readonly string[];
}

/** A security scheme of a tool, as OpenAI's Apps SDK reads it from `_meta.securitySchemes`. */
type SecurityScheme = { type: 'noauth' } | { type: 'oauth2'; scopes?: string[] };

/**
 * The `tools/list` entry of a tool on an era. A 2025-era `outputSchema` must have an object
 * root, so a non-object output schema is advertised wrapped as `{ result }` there — the same
 * wrap the SDK applies to such a tool's `structuredContent` on that era. `_meta` carries the
 * tool's `securitySchemes` (see {@link securitySchemesOf}) after its own keys.
 */
export function toMcpTool(descriptor: ToolDescriptor, era: McpEra, signIn?: McpSignIn): Tool {
  const { title, ...hints } = descriptor.annotations;
  const meta = metaOf(descriptor, signIn);
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
    ...(meta !== undefined && { _meta: meta as Tool['_meta'] }),
    ...(descriptor.task !== undefined &&
      era.listsTaskSupport && { execution: { taskSupport: descriptor.task } }),
  };
}

/**
 * A tool's `_meta`: its own, with the `securitySchemes` {@link securitySchemesOf} derives after
 * its keys, unless it declares `securitySchemes` itself (its own win).
 */
function metaOf(
  descriptor: ToolDescriptor,
  signIn: McpSignIn | undefined,
): Readonly<Record<string, unknown>> | undefined {
  const own = descriptor._meta;
  if (own?.securitySchemes !== undefined) return own;
  const securitySchemes = securitySchemesOf(descriptor.scopes, signIn);
  return securitySchemes === undefined ? own : { ...own, securitySchemes };
}

/**
 * What a call of the tool needs, in the convention of OpenAI's Apps SDK (ChatGPT's connectors),
 * as `@rekog/mcp-nest` lists it: an OAuth token (`oauth2`) with the scopes every request needs
 * and the tool's, on an endpoint that signs callers in (it has no anonymous caller), or for a
 * tool that requires scopes; nothing for a tool without scopes on an endpoint without sign-in,
 * where the application's own route guards, unknown here, decide who may call.
 */
export function securitySchemesOf(
  scopes: readonly string[] | undefined,
  signIn: McpSignIn | undefined,
): SecurityScheme[] | undefined {
  if (!signIn && (scopes === undefined || scopes.length === 0)) return undefined;
  const needed = [...new Set([...(signIn?.requiredScopes ?? []), ...(scopes ?? [])])];
  return [{ type: 'oauth2', ...(needed.length > 0 && { scopes: needed }) }];
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
