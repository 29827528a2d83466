/**
 * What the MCP layer says when its configuration cannot work: each message names the option
 * and what would fix it. Thrown as a `ToolsConfigurationError` when the endpoint is made.
 */
export const MCP_MESSAGES = {
  maxBodyBytes: (value: unknown) =>
    `mcp.maxBodyBytes must be a positive integer (bytes), got ${value}.`,
  protocol: (value: unknown) =>
    `mcp.protocol must be 'dual', 'modern' or 'legacy', got "${value}".`,
  noIssuer: () =>
    'mcp.auth.issuers needs at least one issuer: the URL of each authorization server whose tokens are accepted.',
  issuerNotUrl: (issuer: string) =>
    `mcp.auth.issuers: "${issuer}" is not a URL; give the issuer identifier of an authorization server.`,
  issuerRefused: (issuer: string, reason: string) =>
    `mcp.auth.issuers: "${issuer}" cannot be an issuer: ${reason}`,
  resourceChoice: () =>
    'mcp.auth needs exactly one of resource (the endpoint URL clients use, e.g. "https://api.example.com/mcp") and resourceFromRequest: true.',
  resourceNotUrl: (resource: string) =>
    `mcp.auth.resource must be an absolute URL without a fragment, got "${resource}".`,
  notAScope: (scope: unknown) =>
    `mcp.auth: ${JSON.stringify(scope)} is not an OAuth scope; a scope has no spaces, quotes or backslashes.`,
  symmetricAlgorithms: (refused: readonly string[]) =>
    `mcp.auth.jwt.algorithms must not allow ${refused.join(', ')}: access tokens are verified with the issuer's public keys.`,
  taskNumber: (name: string, value: unknown, unit: string | null) =>
    `mcp.tasks.${name} must be a positive whole number${unit === null ? '' : ` of ${unit}`}, got ${value}.`,
  taskTtlAboveMax: (ttlMs: number, maxTtlMs: number) =>
    `mcp.tasks.ttlMs (${ttlMs}) is longer than mcp.tasks.maxTtlMs (${maxTtlMs}): raise maxTtlMs, or leave it out.`,
} as const;
