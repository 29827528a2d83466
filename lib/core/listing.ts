import type { CompiledTool } from './runner.js';
import type { ToolContext } from './types.js';

/** Whether every guard of a tool lets it be listed for a context. */
export async function isListable(tool: CompiledTool, context: ToolContext): Promise<boolean> {
  for (const guard of tool.guards) {
    if (guard.canList && (await guard.canList(tool.descriptor, context)) !== true) return false;
  }
  return true;
}
