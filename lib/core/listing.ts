import { missingScopes, principalOf } from './principal.js';
import type { CompiledTool } from './runner.js';
import type { ToolContext } from './types.js';

/** Whether a tool's listing depends on the caller: it requires scopes, or a guard has `canList`. */
export function listsPerCaller(tool: CompiledTool): boolean {
  return tool.spec.scopes !== undefined || tool.guards.some((guard) => guard.canList);
}

/** Whether the context's principal holds a tool's scopes and every guard lets it be listed. */
export async function isListable(tool: CompiledTool, context: ToolContext): Promise<boolean> {
  const { scopes } = tool.spec;
  if (scopes && missingScopes(scopes, principalOf(context)?.scopes).length > 0) return false;
  for (const guard of tool.guards) {
    if (guard.canList && (await guard.canList(tool.descriptor, context)) !== true) return false;
  }
  return true;
}
