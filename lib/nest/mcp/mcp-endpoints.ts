import { McpBearerAuth } from '../../mcp/auth/bearer-auth.js';
import { MESSAGES, ToolsConfigurationError } from '../tools.messages.js';
import type { ResolvedMcpOptions } from './mcp-options.js';

/** Injection token of the application's MCP endpoints (`mcp` first, then `mcp.endpoints`). */
export const MCP_ENDPOINTS = Symbol.for('toolwright.mcpEndpoints');

/** One MCP endpoint of the application: how messages name it, its options and its sign-in. */
export interface McpEndpointSetup {
  readonly name: string;
  readonly options: ResolvedMcpOptions;
  readonly auth: McpBearerAuth | null;
}

/**
 * The endpoints of the module's MCP options: `mcp` (signed in by `mainAuth`) and each of
 * `mcp.endpoints`. Two endpoints that would accept each other's tokens (one resource, or a
 * resource derived from the request beside another signed-in endpoint) are refused.
 */
export function mcpEndpointSetups(
  main: ResolvedMcpOptions,
  mainAuth: McpBearerAuth | null,
): readonly McpEndpointSetup[] {
  const setups: McpEndpointSetup[] = [
    { name: 'mcp', options: main, auth: mainAuth },
    ...main.endpoints.map((options, index) => ({
      name: `mcp.endpoints[${index}]`,
      options,
      auth: options.auth ? new McpBearerAuth(options.auth) : null,
    })),
  ];
  const signedIn = setups.filter((setup) => setup.auth !== null);
  if (signedIn.length < 2) return Object.freeze(setups);
  const resources = new Map<string, string>();
  for (const { name, options, auth } of signedIn) {
    if (auth!.derivesResource) {
      throw new ToolsConfigurationError(MESSAGES.endpointDerivedResource(name));
    }
    const resource = new URL(options.auth!.resource!).href;
    const other = resources.get(resource);
    if (other) {
      throw new ToolsConfigurationError(MESSAGES.endpointSameResource(name, other, resource));
    }
    resources.set(resource, name);
  }
  return Object.freeze(setups);
}
