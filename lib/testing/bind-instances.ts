import type { BoundClassTool } from '../core/catalog.js';
import { ToolsConfigurationError } from '../core/errors.js';
import type { ToolInvokerOptions } from '../core/invoker.js';
import type { ClassTool } from '../core/tool-class.js';
import { TESTING_MESSAGES } from './testing.messages.js';

/**
 * Binds `@ToolFactory` classes to instances you built (with fake dependencies), for
 * `createToolInvoker`'s `bind` option: each class tool runs on the given instance of its class,
 * and its `@UseToolGuards` guard classes on a given instance too, else one built with `new` (as
 * the default binder does). A tool class without an instance fails when the invoker compiles.
 *
 * @example
 * const invoker = createToolInvoker([CatalogTools], {
 *   bind: bindInstances(new CatalogTools(fakeCatalogService)),
 * });
 */
export function bindInstances(...instances: object[]): NonNullable<ToolInvokerOptions['bind']> {
  for (const instance of instances) {
    if (typeof instance !== 'object' || instance === null) {
      throw new ToolsConfigurationError(TESTING_MESSAGES.notAnInstance(instance));
    }
  }
  const built = new Map<unknown, any>();
  const instanceOf = (target: ClassTool['target']): any =>
    instances.find((instance) => instance.constructor === target) ??
    instances.find((instance) => instance instanceof target);
  return (tool: ClassTool): BoundClassTool => {
    const instance = instanceOf(tool.target);
    if (instance === undefined) {
      throw new ToolsConfigurationError(TESTING_MESSAGES.noInstance(tool.name, tool.target.name));
    }
    if (typeof instance[tool.methodName] !== 'function') {
      throw new ToolsConfigurationError(
        TESTING_MESSAGES.noMethod(tool.name, tool.target.name, tool.methodName),
      );
    }
    const guard = (target: any) => {
      const given = instanceOf(target);
      if (given !== undefined) return given;
      if (!built.has(target)) built.set(target, new target());
      return built.get(target);
    };
    return {
      handler: (call) => instance[tool.methodName](call),
      guards: tool.guards.map((entry) => (typeof entry === 'function' ? guard(entry) : entry)),
      methods: (name) => (value, options) => instance[name](value, options),
    };
  };
}
