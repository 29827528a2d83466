import type { CompiledTool } from './runner.js';
import type { ToolTransport } from './types.js';

type Lookup = (name: string, transport: ToolTransport) => CompiledTool | undefined;

// The compiled tools behind each invoker, for the surface adapters (MCP, agents), which need a
// tool's schemas and presenters. Kept off the invoker's public API: a compiled tool carries its
// handler and guards, a way around the pipeline.
const lookups = new WeakMap<object, Lookup>();

/** Makes an invoker's compiled tools reachable through {@link compiledTool}. */
export function linkCompiledTools(invoker: object, lookup: Lookup): void {
  lookups.set(invoker, lookup);
}

/**
 * The compiled tool behind a name on a transport, or `undefined` when the invoker has none of
 * that name there. Throws for an object that is not a toolwright invoker (or not compiled yet).
 */
export function compiledTool(
  invoker: object,
  name: string,
  transport: ToolTransport,
): CompiledTool | undefined {
  const lookup = lookups.get(invoker);
  if (!lookup) {
    throw new TypeError(
      'Expected a toolwright invoker (createToolInvoker, or the ToolInvoker of an initialised ToolsModule).',
    );
  }
  return lookup(name, transport);
}
