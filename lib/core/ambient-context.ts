import { isThenable } from './maybe-async.js';
import type { ToolContext } from './types.js';

/** Where the ambient context of the current request comes from (the Nest layer reads the HTTP request). */
export type AmbientContext = () => ToolContext | undefined | Promise<ToolContext | undefined>;

const NO_CONTEXT: ToolContext = Object.freeze({});

function mergeContext(ambient: ToolContext | undefined, explicit: ToolContext | undefined) {
  if (!ambient) return explicit ?? NO_CONTEXT;
  return explicit ? { ...ambient, ...explicit } : ambient;
}

/**
 * A call's raw context: the ambient context of the current request (if any) with the caller's
 * explicit context merged over it. Synchronous when the resolver is.
 */
export function resolveCallContext(
  ambient: AmbientContext | undefined,
  explicit: ToolContext | undefined,
): ToolContext | Promise<ToolContext> {
  if (!ambient) return explicit ?? NO_CONTEXT;
  const resolved = ambient();
  return isThenable(resolved)
    ? Promise.resolve(resolved).then((value) => mergeContext(value, explicit))
    : mergeContext(resolved, explicit);
}
