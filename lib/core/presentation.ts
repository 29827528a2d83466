import type { ToolResult } from './result.js';

// What a surface's presenter made of a success (see InvokeOptions.present), kept beside the result.
const presentations = new WeakMap<ToolResult, unknown>();

/** @internal Keeps a presenter's output with the result it presents. */
export function attachPresentation(result: ToolResult, presentation: unknown): void {
  presentations.set(result, presentation);
}

/**
 * What the tool's presenter for the requested surface (`invoke(..., { present: 'mcp' })`) made
 * of a successful result, or `undefined` when the call asked for none or the tool has none.
 *
 * @example
 * const result = await invoker.invoke(name, args, { transport: 'MCP', present: 'mcp' });
 * const blocks = presentationOf(result);
 */
export function presentationOf(result: ToolResult): unknown {
  return presentations.get(result);
}
