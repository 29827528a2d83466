/** Injection token of the composed tool collection (`ToolsModuleOptions.registry`). */
export const TOOLS_REGISTRY = Symbol.for('toolwright.registry');
/** Injection token of whether the request middleware is mounted by the module. */
export const TOOLS_MOUNT_MIDDLEWARE = Symbol.for('toolwright.mountMiddleware');
/** Injection token of the `ToolsModule` options that may come from DI. */
export const TOOLS_MODULE_OPTIONS = Symbol.for('toolwright.moduleOptions');
/** Injection token of every tool name the registry declares, composed away or not. */
export const TOOLS_DECLARED = Symbol.for('toolwright.declaredNames');
