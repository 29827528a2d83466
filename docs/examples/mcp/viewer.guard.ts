import type { ToolGuard } from 'toolwright';

/**
 * Viewers see and run read-only tools only. `canList` filters `tools/list` per caller, and the
 * runner checks it on `tools/call` too, so a hidden tool answers FORBIDDEN even when called
 * by name. `canList` receives the raw context, as the resolver returned it.
 */
export const viewersReadOnly: ToolGuard = {
  canList: (tool, context) => context.role !== 'viewer' || tool.annotations.readOnlyHint === true,
  canActivate: () => true,
};
