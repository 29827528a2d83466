import type { CallerSignal } from './handler-wait.js';
import type { InvokeOptions } from './invoker.js';
import type { ResourceRead } from './operations.js';
import type { ToolResult } from './result.js';
import type { CompiledTool } from './runner.js';
import type { ToolTelemetry } from './telemetry.js';
import type { ToolContext, ToolTransport } from './types.js';

type Lookup = (name: string, transport: ToolTransport) => CompiledTool | undefined;

/** The options of {@link InvokerInternals.run}: those of `invoke`, with any caller signal. */
export type RunOptions = Omit<InvokeOptions, 'signal'> & { readonly signal?: CallerSignal };

/** What the surface adapters reach behind an invoker. */
export interface InvokerInternals {
  readonly lookup: Lookup;
  /**
   * Runs a call of one of its compiled tools as `invoke` runs a call of a name, but answers at
   * once when nothing on the way was asynchronous (`invoke` always answers a promise).
   */
  readonly run: (
    tool: CompiledTool,
    args: unknown,
    options: RunOptions,
  ) => ToolResult | Promise<ToolResult>;
  /**
   * Reads a resource as `readResource` does, answering at once when nothing on the way was
   * asynchronous; `undefined` when no resource or template on the transport serves the URI.
   */
  readonly read: (
    uri: string,
    options: RunOptions,
  ) => ToolResult<ResourceRead> | Promise<ToolResult<ResourceRead>> | undefined;
  /** The compiled resources (with templates) or prompts exposed on a transport. */
  readonly operations: (
    transport: ToolTransport,
    kind: 'resource' | 'prompt',
  ) => readonly CompiledTool[];
  /** The compiled resource or template that serves a URI on a transport. */
  readonly resource: (uri: string, transport: ToolTransport) => CompiledTool | undefined;
  /** The compiled prompt of a name on a transport. */
  readonly prompt: (name: string, transport: ToolTransport) => CompiledTool | undefined;
  /**
   * The raw context a call made now would see: the ambient context of the current request with
   * `explicit` merged over it.
   */
  readonly context: (explicit: ToolContext | undefined) => ToolContext | Promise<ToolContext>;
  /** The invoker's telemetry, which the MCP endpoint's request spans follow. */
  readonly telemetry?: ToolTelemetry;
}

// The compiled tools behind each invoker, for the surface adapters (MCP, agents), which need a
// tool's schemas and presenters. Kept off the invoker's public API: a compiled tool carries its
// handler and guards, a way around the pipeline.
const internals = new WeakMap<object, InvokerInternals>();

/** Makes an invoker's compiled tools reachable through {@link compiledTool}. */
export function linkCompiledTools(invoker: object, linked: InvokerInternals): void {
  internals.set(invoker, linked);
}

/** The internals of an invoker (see {@link linkCompiledTools}); throws for anything else. */
export function invokerInternals(invoker: object): InvokerInternals {
  const linked = internals.get(invoker);
  if (!linked) {
    throw new TypeError(
      'Expected a toolwright invoker (createToolInvoker, or the ToolInvoker of an initialised ToolsModule).',
    );
  }
  return linked;
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
  return invokerInternals(invoker).lookup(name, transport);
}
