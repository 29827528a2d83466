import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import { assertUniqueNames } from './naming.js';
import { isRuntimeTool, type RuntimeTool } from './runtime-tool.js';
import { classTools, isClassTool, isToolClass, type ClassTool } from './tool-class.js';
import type { Class } from './types.js';

/** A tool as the registry and the invoker see it: defined in code, or declared by a class method. */
export type ToolDefinition = RuntimeTool | ClassTool;

/** What a registry's `defaults` and an invoker's tool list may hold: runtime tools and tool classes. */
export type ToolEntry = RuntimeTool | Class;

/** The surface a module mounts: exactly these tools, in declaration order. */
export interface ToolRegistry {
  readonly tools: readonly ToolDefinition[];
  readonly names: readonly string[];
}

/** Composes default tools, then lets the application disable or replace them by name. */
export interface ToolRegistryBuilder {
  /** The names of every default, in declaration order. */
  readonly declared: readonly string[];
  /** Drops a default from the surface. Idempotent; refuses a name that is not a default. */
  disable(name: string): this;
  /** Substitutes a default; the replacement must carry the same name, once per name. */
  replace(name: string, tool: ToolEntry): this;
  /** The composed surface. */
  build(): ToolRegistry;
}

/** Anything an invoker or `ToolsModule` accepts as its tools. */
export type ToolCollection =
  ToolRegistryBuilder | ToolRegistry | readonly (ToolEntry | ToolDefinition)[];

function describe(entry: unknown): string {
  if (typeof entry === 'function') return `class ${entry.name || '(anonymous)'}`;
  if (entry === null || typeof entry !== 'object') return String(entry);
  return `an object with keys ${Object.keys(entry).slice(0, 5).join(', ') || '(none)'}`;
}

/** The tool definitions of one entry: a runtime tool, or every tool a class declares. */
export function expandEntry(entry: unknown): readonly ToolDefinition[] {
  if (isRuntimeTool(entry) || isClassTool(entry)) return [entry];
  if (isToolClass(entry)) return classTools(entry);
  throw new ToolsConfigurationError(CORE_MESSAGES.notATool(describe(entry)));
}

function expandAll(entries: readonly unknown[]): ToolDefinition[] {
  const tools = entries.flatMap(expandEntry);
  assertUniqueNames(tools.map(({ name, origin }) => ({ name, origin })));
  return tools;
}

function freezeRegistry(tools: readonly ToolDefinition[]): ToolRegistry {
  return Object.freeze({
    tools: Object.freeze([...tools]),
    names: Object.freeze(tools.map((tool) => tool.name)),
  });
}

function isBuilder(value: unknown): value is ToolRegistryBuilder {
  return typeof (value as ToolRegistryBuilder | undefined)?.build === 'function';
}

function isRegistry(value: unknown): value is ToolRegistry {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as ToolRegistry).tools) &&
    Array.isArray((value as ToolRegistry).names)
  );
}

/**
 * Composes default tools (runtime tools and tool classes) into one named surface that an
 * application can change by name: `disable` drops a default, `replace` substitutes it. Unknown
 * names are refused at once, listing what was declared.
 *
 * @example
 * const registry = defineToolRegistry({ defaults: [InvoiceTools, pingTool] }).disable(
 *   'billing_void_invoice',
 * );
 * registry.build().names; // ['billing_get_invoice', 'health_ping']
 */
export function defineToolRegistry(options: {
  defaults: readonly ToolEntry[];
}): ToolRegistryBuilder {
  if (!Array.isArray(options?.defaults)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.registryDefaults());
  }
  const defaults = expandAll(options.defaults);
  const declared = Object.freeze(defaults.map((tool) => tool.name));
  const disabled = new Set<string>();
  const replaced = new Map<string, ToolDefinition>();

  const assertDeclared = (verb: 'disable' | 'replace', name: string) => {
    if (!declared.includes(name)) {
      throw new ToolsConfigurationError(CORE_MESSAGES.undeclaredDefault(verb, name, declared));
    }
  };

  const builder: ToolRegistryBuilder = {
    declared,
    disable(name) {
      assertDeclared('disable', name);
      disabled.add(name);
      return this;
    },
    replace(name, tool) {
      assertDeclared('replace', name);
      if (disabled.has(name))
        throw new ToolsConfigurationError(CORE_MESSAGES.replaceDisabled(name));
      if (replaced.has(name)) throw new ToolsConfigurationError(CORE_MESSAGES.replacedTwice(name));
      const replacement = expandEntry(tool).find((candidate) => candidate.name === name);
      if (!replacement) {
        const carried = expandEntry(tool).map((candidate) => candidate.name);
        throw new ToolsConfigurationError(CORE_MESSAGES.replacementName(name, carried));
      }
      replaced.set(name, replacement);
      return this;
    },
    build() {
      return freezeRegistry(
        defaults
          .filter((tool) => !disabled.has(tool.name))
          .map((tool) => replaced.get(tool.name) ?? tool),
      );
    },
  };
  return builder;
}

/**
 * The tool definitions of anything an invoker accepts: a registry builder, its `build()` result,
 * or a list of runtime tools and tool classes. Duplicate names are refused, naming both origins.
 */
export function resolveTools(collection: ToolCollection): readonly ToolDefinition[] {
  if (isBuilder(collection)) return collection.build().tools;
  if (isRegistry(collection)) {
    assertUniqueNames(collection.tools.map(({ name, origin }) => ({ name, origin })));
    return collection.tools;
  }
  if (Array.isArray(collection)) return expandAll(collection);
  throw new ToolsConfigurationError(CORE_MESSAGES.notACollection(describe(collection)));
}

/**
 * Every tool name a collection declares, including defaults a registry disabled or replaced —
 * to tell a class the application composed away from one it forgot.
 */
export function declaredNames(collection: ToolCollection): readonly string[] {
  return isBuilder(collection)
    ? collection.declared
    : resolveTools(collection).map((tool) => tool.name);
}
