// Bootstrap failures of `ToolsModule` share core's composition error class.
export { ToolsConfigurationError } from '../core/errors.js';

export const MESSAGES = {
  classNotProvided: (className: string, tools: readonly string[]) =>
    `${className} is in the tool registry (${tools.join(', ')}) but no module provides it. ` +
    `Add ${className} to the providers of a module that AppModule imports.`,
  orphanToolMethods: (className: string, methods: readonly string[]) =>
    `${className} has @Tool methods (${methods.join(', ')}) but no @ToolFactory. ` +
    `Decorate the class with @ToolFactory({ serviceName, ... }).`,
  notInRegistry: (className: string) =>
    `${className} declares tools with @ToolFactory but is not in the tool registry, so they are not exposed. ` +
    `Add it to defineToolRegistry({ defaults: [...] }) if that is not intended.`,
  noMethod: (className: string, method: string) =>
    `${className}.${method} is declared with @Tool but is not a method of the instance the container built.`,
  scopedClass: (className: string, role: string, reason: string) =>
    `${className} is used as a tool ${role} but ${reason}: hooks, guards and context resolvers are resolved once at bootstrap. ` +
    `Make ${className} a singleton (with singleton dependencies), or resolve request data through the context resolver ` +
    `(ToolsModule.forRoot({ context })), which receives the current request on every call.`,
  unresolvedClass: (className: string, role: string, reason: string) =>
    `${className} is used as a tool ${role} but the container could not provide it: ${reason}`,
  notReady: () =>
    'ToolInvoker is not ready: tools are compiled during app.init(). Call it after the application has initialised.',
  invalid: (message: string) => `Invalid tool configuration: ${message}`,
  noRegistry: () =>
    'ToolsModule.forRoot needs a registry: ToolsModule.forRoot(defineToolRegistry({ defaults: [...] })) ' +
    'or ToolsModule.forRoot({ registry, ... }).',
  staticFromFactory: (fields: readonly string[]) =>
    `ToolsModule.forRootAsync's factory returned ${fields.join(', ')}, which ` +
    `${fields.length === 1 ? 'shapes' : 'shape'} the module before DI runs. Give ` +
    `${fields.length === 1 ? 'it' : 'them'} in forRootAsync's own options instead: ` +
    `${asyncOptionsWith(fields)}.`,
  standardDecorator: (name: string) =>
    `@${name} was applied as a standard decorator: compile with "experimentalDecorators": true ` +
    `(and "emitDecoratorMetadata": true), as Nest needs, and check that your tsconfig includes this file.`,
  bodyLimitUnavailable: (maxBodyBytes: number) =>
    `The MCP route cannot get its own body limit on this Express adapter: bodies over the ` +
    `application's JSON limit are refused with 413 before mcp.maxBodyBytes applies. ` +
    `Raise it with app.useBodyParser('json', { limit: ${maxBodyBytes} }).`,
  busUnreachable: (reason: string) =>
    `The MCP endpoint could not subscribe to its instance bus: ${sentence(reason)} It serves ` +
    `requests meanwhile (what must cross instances is refused or not heard) and subscribes as ` +
    `soon as the bus answers. Set mcp.busRequired: true to refuse to start instead.`,
  busRequired: (reason: string) =>
    `The MCP endpoint could not subscribe to its instance bus, and mcp.busRequired is true: ` +
    `${sentence(reason)} Make the bus reachable, or set mcp.busRequired: false to start ` +
    `without it and subscribe once it answers.`,
  endpointsNotList: (value: unknown) =>
    `mcp.endpoints must be a list of endpoints ({ path, select?, serverInfo?, auth?, … }), got ${typeof value}.`,
  endpointPath: (where: string) =>
    `${where} needs a path: the route of this MCP server, such as '/admin/mcp'.`,
  endpointPathTaken: (where: string, other: string, path: string) =>
    `${where} is at ${path}, where ${other} is already: each MCP server of the application needs its own path.`,
  endpointSameResource: (where: string, other: string, resource: string) =>
    `${where} signs callers in for the resource ${resource}, as ${other} does, so a token for ` +
    `one would be accepted by the other: give each endpoint its own auth (auth.resource set to ` +
    `its own URL, e.g. https://api.example.com/admin/mcp).`,
  endpointDerivedResource: (where: string) =>
    `${where} sets auth.resourceFromRequest, which serves the metadata of every path, while ` +
    `another endpoint signs callers in too: give each signed-in endpoint its own auth.resource.`,
  factoryEndpoint: (index: number, path: unknown, paths: readonly string[]) =>
    `ToolsModule.forRootAsync's factory returned mcp.endpoints[${index}] for the path ` +
    `${JSON.stringify(path)}, which no endpoint given to forRootAsync has: the factory sets ` +
    `options of the endpoints given there, named by their path ` +
    `(${paths.length > 0 ? paths.join(', ') : 'none is given'}). Add the endpoint to ` +
    `forRootAsync's own mcp.endpoints.`,
  busSubscribed: () =>
    'The MCP endpoint subscribed to its instance bus: what other instances pass on reaches it again.',
} as const;

/** `text` ended with a full stop, whether it had one or not. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** `forRootAsync`'s options with `fields` (`isGlobal`, `mcp.path`, …) given directly. */
function asyncOptionsWith(fields: readonly string[]): string {
  const top = fields.filter((field) => !field.startsWith('mcp.') && field !== 'registry');
  const mcp = fields.filter((field) => field.startsWith('mcp.')).map((field) => field.slice(4));
  const given = ['registry', ...top, ...(mcp.length > 0 ? [`mcp: { ${mcp.join(', ')} }`] : [])];
  return `ToolsModule.forRootAsync({ ${given.join(', ')}, useFactory })`;
}
