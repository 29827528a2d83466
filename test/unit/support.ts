import { jest } from '@jest/globals';
import { z } from 'zod';
import { defineRuntimeTool, type RuntimeTool, type ToolLogger } from '../../lib/core/index.js';
import type { ToolMethod } from '../../lib/core/types.js';

/** A small runtime tool: `<service>_<action>` with an open object input unless one is given. */
export function makeTool(
  overrides: {
    service?: string;
    action?: string;
    method?: ToolMethod;
    [key: string]: unknown;
  } = {},
): RuntimeTool {
  const { service = 'test', action = 'run', method = 'POST', ...rest } = overrides;
  return defineRuntimeTool({
    description: `${service} ${action}`,
    identity: { serviceName: service, action, method },
    input: z.looseObject({}),
    handler: ({ input }: { input: unknown }) => input,
    ...rest,
  } as any);
}

/** A logger whose calls can be asserted. */
export function makeLogger() {
  return {
    error: jest.fn<ToolLogger['error']>(),
    warn: jest.fn<NonNullable<ToolLogger['warn']>>(),
  };
}

/** Paths (from the root) of every object reachable from `value` that is not frozen. */
export function unfrozenPaths(value: unknown, path = '$', seen = new Set<unknown>()): string[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  const own = Object.isFrozen(value) ? [] : [path];
  return own.concat(
    ...Object.entries(value).map(([key, child]) => unfrozenPaths(child, `${path}.${key}`, seen)),
  );
}
