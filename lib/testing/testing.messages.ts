/**
 * What the testing helpers say when they are used in a way that cannot work: each message names
 * what would fix it. Thrown as a `ToolsConfigurationError`.
 */
export const TESTING_MESSAGES = {
  noInstance: (tool: string, className: string) =>
    `bindInstances: the tool ${tool} is a method of ${className}, and no instance of ${className} was given. Pass one: bindInstances(new ${className}(...)).`,
  notAnInstance: (value: unknown) =>
    `bindInstances takes instances of tool and guard classes (new MyTools(fake)), got ${value === null ? 'null' : typeof value}.`,
  noMethod: (tool: string, className: string, method: string) =>
    `bindInstances: the tool ${tool} calls ${className}.${method}, which the given instance does not have.`,
  mcpWithoutInvoker: () =>
    'The mcp option configures the endpoint served for a core invoker; an application or a request listener serves its own (configure it there, e.g. ToolsModule.forRoot({ mcp })).',
  issuerNotUrl: (issuer: string) =>
    `createTestIssuer: issuer must be an absolute URL, got "${issuer}".`,
  resourceNotUrl: (resource: string) =>
    `createTestIssuer: resource must be the endpoint's absolute URL (mcp.auth.resource), got "${resource}".`,
} as const;
