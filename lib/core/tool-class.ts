import type { ToolAsks } from './asking.js';
import type { OperationIcon, OperationSpec } from './operations.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import {
  toolSpec,
  type ToolInputSchema,
  type ToolPresenters,
  type ToolSpec,
} from './runtime-tool.js';
import type { ToolSchema } from './schema.js';
import type {
  Class,
  ToolAnnotations,
  ToolMethod,
  ToolTaskSupport,
  ToolTransport,
} from './types.js';

/**
 * Where a tool class keeps its metadata: a static, non-enumerable property under this symbol.
 * The Nest decorators `@ToolFactory` and `@Tool` write it; anything else may too.
 */
export const TOOL_CLASS_METADATA = Symbol.for('toolwright.toolClass');

/** What a class of tools shares: identity and the context schema. */
export interface ToolClassOptions {
  serviceName: string;
  scope?: string;
  meta?: Record<string, unknown>;
  /** Parses the call's context inside the runner, once per call. */
  context?: ToolSchema;
  /** OAuth scopes every tool of the class requires, besides its own. */
  scopes?: readonly string[];
  /** Tags of every tool of the class, besides its own. */
  tags?: readonly string[];
}

/** One method of a tool class, declared as a tool. */
export interface ToolMethodOptions {
  action: string;
  method: ToolMethod;
  /** Defaults to `snake_case(serviceName)_snake_case(action)`. */
  name?: string;
  description: string;
  /**
   * An object schema (Zod, another Standard Schema or JSON Schema); a method that takes no
   * arguments may leave it out (`z.object({})`).
   */
  input?: ToolInputSchema;
  output?: ToolSchema;
  transports?: readonly ToolTransport[];
  annotations?: ToolAnnotations;
  timeoutMs?: number;
  present?: ToolPresenters<any>;
  /** Replaces the class's `meta` for this tool. */
  meta?: Record<string, unknown>;
  /** OAuth scopes the caller's principal must hold, besides the class's. */
  scopes?: readonly string[];
  /** Labels to select the tool by, besides the class's. */
  tags?: readonly string[];
  /** What the method may ask the user (`confirm`, `elicit`); see `RuntimeToolConfig.asks`. */
  asks?: ToolAsks;
  /** Whether MCP clients may (or must) run it as a task; see `RuntimeToolConfig.task`. */
  task?: ToolTaskSupport;
  /** A resource or prompt method (`@Resource`, `@ResourceTemplate`, `@Prompt`). */
  operation?: OperationSpec;
  /** Icons clients may show for the tool (MCP `icons`). */
  icons?: readonly OperationIcon[];
  /** Metadata MCP lists carry with the tool (`_meta`). */
  _meta?: Record<string, unknown>;
}

/** The static metadata of a tool class. */
export interface ToolClassMetadata extends ToolClassOptions {
  readonly tools: readonly (ToolMethodOptions & {
    readonly methodName: string;
    readonly guards?: readonly unknown[];
  })[];
  /** Guards for every tool of the class: guard objects or guard classes. */
  readonly guards?: readonly unknown[];
}

/**
 * The class's list and the method's, one after the other. Anything but a list (a scope given as
 * one string) is passed on as it is, for `assertToolSpec` to refuse, rather than spread into
 * letters.
 */
function joined(
  own: readonly string[] | undefined,
  method: readonly string[] | undefined,
): readonly string[] | undefined {
  for (const list of [own, method]) if (list !== undefined && !Array.isArray(list)) return list;
  return [...(own ?? []), ...(method ?? [])];
}

/** A tool declared by a method of a class; an invoker binds it to an instance. */
export interface ClassTool extends ToolSpec {
  readonly kind: 'class';
  readonly target: Class;
  readonly methodName: string;
  /** Class guards then method guards, as declared (objects or classes). */
  readonly guards: readonly unknown[];
}

/** Writes a class's tool metadata. */
export function defineToolClass(target: Class, metadata: ToolClassMetadata): void {
  Object.defineProperty(target, TOOL_CLASS_METADATA, {
    value: metadata,
    configurable: true,
    enumerable: false,
  });
  derived.delete(target);
}

/** The tool metadata a class declares itself (not inherited), if any. */
export function getToolClassMetadata(target: unknown): ToolClassMetadata | undefined {
  if (typeof target !== 'function' || !Object.hasOwn(target, TOOL_CLASS_METADATA)) return undefined;
  return (target as any)[TOOL_CLASS_METADATA] as ToolClassMetadata;
}

/** Whether a value is a class that declares tools. */
export function isToolClass(value: unknown): value is Class {
  return getToolClassMetadata(value) !== undefined;
}

/** Whether a value is one tool of a tool class, as `classTools` returns it. */
export function isClassTool(value: unknown): value is ClassTool {
  return typeof value === 'object' && value !== null && (value as ClassTool).kind === 'class';
}

const derived = new WeakMap<Class, readonly ClassTool[]>();

/**
 * The tools a class declares, in method declaration order, with names known statically; the
 * same array on every call.
 */
export function classTools(target: Class): readonly ClassTool[] {
  const cached = derived.get(target);
  if (cached) return cached;
  const metadata = getToolClassMetadata(target);
  if (!metadata) {
    throw new ToolsConfigurationError(CORE_MESSAGES.notToolClass(target.name || 'This class'));
  }
  const tools = Object.freeze(
    metadata.tools.map((tool): ClassTool => {
      const spec = toolSpec(
        {
          ...tool,
          identity: {
            serviceName: metadata.serviceName,
            action: tool.action,
            method: tool.method,
            ...(metadata.scope !== undefined && { scope: metadata.scope }),
            ...((tool.meta ?? metadata.meta) !== undefined && { meta: tool.meta ?? metadata.meta }),
          },
          context: metadata.context,
          scopes: joined(metadata.scopes, tool.scopes),
          tags: joined(metadata.tags, tool.tags),
        },
        `${target.name}.${tool.methodName}`,
      );
      return Object.freeze({
        ...spec,
        kind: 'class',
        target,
        methodName: tool.methodName,
        guards: Object.freeze([...(metadata.guards ?? []), ...(tool.guards ?? [])]),
      });
    }),
  );
  derived.set(target, tools);
  return tools;
}
