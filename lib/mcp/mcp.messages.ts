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
  selectedName: (where: string, key: 'include' | 'exclude', unknown: string) =>
    `${where}.select.${key} names nothing the application serves over MCP: ${unknown}`,
  selectedClass: (where: string, name: string | undefined, known: readonly string[]) =>
    `${where}.select.classes names ${name ?? String(name)}, which declares nothing the ` +
    `application serves over MCP: add it to the registry (and the providers), or name one of ` +
    `${known.length > 0 ? known.join(', ') : '(no tool class is registered)'}.`,
  selectedService: (where: string, service: string, known: readonly string[]) =>
    `${where}.select.services names "${service}", a service nothing served over MCP declares; ` +
    `the services are ${known.join(', ')}.`,
  anonymousTasks: () =>
    '[toolwright] MCP: a request for a task named no caller, so it was refused (-32600): tasks ' +
    'are kept for the caller that created them. Sign callers in (mcp.auth), or say who calls ' +
    "with mcp.identify (by default the id of request.user, else the principal of the request's " +
    'context). (Logged once.)',
  anonymousQuestion: (name: string) =>
    `[toolwright] MCP: tool "${name}" asked the user during a 2025-era call whose request names ` +
    'no caller, so the call failed with USER_INPUT_UNAVAILABLE: the answer comes as a request of ' +
    'its own, matched to the question by its caller. Sign callers in (mcp.auth), or say who ' +
    'calls with mcp.identify. (Logged once.)',
  selectedTag: (where: string, tag: string, known: readonly string[]) =>
    `${where}.select.tags names "${tag}", a tag nothing served over MCP carries; ` +
    (known.length > 0 ? `the tags are ${known.join(', ')}.` : 'nothing has tags.'),
  selectedNothing: (where: string) =>
    `${where}.select selects nothing: the endpoint would serve no tool, resource or prompt. ` +
    `Check its include, classes, services and exclude.`,
  hostRefused: (host: string) =>
    `MCP: refused a request whose Host is ${host} (403): it is not in mcp.allowedHosts, which ` +
    `accepts localhost, 127.0.0.1 and [::1] by default (DNS-rebinding protection). Add the ` +
    `names clients use: ToolsModule.forRoot({ mcp: { allowedHosts: ['api.example.com'] } }) or ` +
    `createMcpHttpHandler(invoker, { allowedHosts }); false turns the check off behind a proxy ` +
    `that checks Host. Logged once per host.`,
  hostsRefusedQuiet: (count: number) =>
    `MCP: ${count} different Host headers were refused; further ones are refused without a log ` +
    `line (see mcp.allowedHosts).`,
  requestStateOwnKey: () =>
    '[toolwright] MCP: tools ask the user, and no requestState key is set: this process made ' +
    'its own, so a question is answered only on the instance that asked it. Set a key of 32 ' +
    'bytes or more, the same on every instance: ToolsModule.forRoot({ mcp: { requestState: ' +
    "{ key } } }) (or the mcp of forRootAsync's factory), or createMcpHttpHandler(invoker, " +
    '{ requestState: { key } }).',
} as const;
