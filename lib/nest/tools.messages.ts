/** Bootstrap failures of `ToolsModule`: each names what is wrong and how to fix it. */
export class ToolsConfigurationError extends Error {
  override readonly name = 'ToolsConfigurationError';
}

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
  notReady: () =>
    'ToolInvoker is not ready: tools are compiled during app.init(). Call it after the application has initialised.',
  invalid: (message: string) => `Invalid tool configuration: ${message}`,
} as const;
