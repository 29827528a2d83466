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
  cacheHintsNotObject: (value: unknown) =>
    `mcp.cacheHints must be an object of lists (tools, resources, resourceTemplates, prompts), got ${JSON.stringify(value)}.`,
  cacheHintList: (list: string) =>
    `mcp.cacheHints has no list ${JSON.stringify(list)}: give tools, resources, resourceTemplates or prompts.`,
  cacheHintNotObject: (list: string, value: unknown) =>
    `mcp.cacheHints.${list} must be an object such as { ttlMs: 60000, cacheScope: 'private' }, got ${JSON.stringify(value)}.`,
  cacheHintKey: (list: string, key: string) =>
    `mcp.cacheHints.${list} has no option ${JSON.stringify(key)}: a cache hint takes ttlMs and cacheScope.`,
  cacheHintTtl: (list: string, value: unknown) =>
    `mcp.cacheHints.${list}.ttlMs must be a whole number of milliseconds, 0 or more, got ${String(value)}.`,
  cacheHintScope: (list: string, value: unknown) =>
    `mcp.cacheHints.${list}.cacheScope must be 'public' or 'private', got ${JSON.stringify(value)}.`,
  cacheHintPublicPerCaller: (list: string) =>
    `mcp.cacheHints.${list}.cacheScope is 'public', but the ${list} list depends on the caller ` +
    `(something in it requires scopes or has a guard with canList), and a cache shared between ` +
    `users would show one caller's list to another: use 'private', or leave cacheScope out.`,
} as const;
