import { Inject, Injectable, Logger } from '@nestjs/common';
import { ContextIdFactory, DiscoveryService, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { ToolGuard } from '../core/hooks.js';
import type { BoundClassTool, ClassToolBinder } from '../core/invoker.js';
import type { ToolDefinition } from '../core/registry.js';
import { classTools, getToolClassMetadata, type ClassTool } from '../core/tool-class.js';
import type { Class } from '../core/types.js';
import { orphanToolMethods } from './decorators/tool-class.draft.js';
import { ToolRequestContext } from './request-context.js';
import { TOOLS_DECLARED } from './tools.constants.js';
import { MESSAGES, ToolsConfigurationError } from './tools.messages.js';

/**
 * Finds the container's instances of the registry's tool classes and binds each `@Tool` method:
 * a static class once, at bootstrap; a request-scoped one per call, in a fresh DI context with
 * the current request registered. Also resolves hook, guard and resolver classes.
 */
@Injectable()
export class ToolsExplorer {
  private readonly logger = new Logger('ToolsModule');

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(ToolRequestContext) private readonly requestContext: ToolRequestContext,
    @Inject(TOOLS_DECLARED) private readonly declared: readonly string[],
  ) {}

  /** Checks the registry against the container and returns the binder for its class tools. */
  async explore(tools: readonly ToolDefinition[]): Promise<ClassToolBinder> {
    const wrappers = this.discovery.getProviders();
    this.checkDecoratedClasses(wrappers);

    const bound = new Map<ClassTool, BoundClassTool>();
    for (const tool of tools) {
      if (tool.kind !== 'class') continue;
      const wrapper = wrappers.find((candidate) => candidate.metatype === tool.target);
      if (!wrapper) {
        const names = tools
          .filter((t) => t.kind === 'class' && t.target === tool.target)
          .map((t) => t.name);
        throw new ToolsConfigurationError(MESSAGES.classNotProvided(tool.target.name, names));
      }
      // Like Nest's own @UseGuards, a guard class nobody provides is built in the module that
      // declares the tool class, so it can inject what that module sees.
      const hostRef = this.moduleRefOf(wrapper);
      bound.set(tool, {
        handler: this.bindHandler(tool, wrapper),
        guards: await Promise.all(
          tool.guards.map((guard) => this.instance(guard as ToolGuard | Class<ToolGuard>, hostRef)),
        ),
      });
    }
    return (tool) => bound.get(tool)!;
  }

  /**
   * The instance behind a class reference: the container's provider, or a new one built by DI
   * in the context of `moduleRef` (ToolsModule's by default).
   */
  async instance<T extends object>(
    ref: T | Class<T>,
    moduleRef: ModuleRef = this.moduleRef,
  ): Promise<T> {
    if (typeof ref !== 'function') return ref;
    try {
      return moduleRef.get(ref as Class<T>, { strict: false });
    } catch {
      return moduleRef.create(ref as any);
    }
  }

  /** The ModuleRef of the module that provides a wrapper's class. */
  private moduleRefOf(wrapper: InstanceWrapper): ModuleRef {
    const hostRef = wrapper.host?.providers.get(ModuleRef)?.instance;
    return hostRef instanceof ModuleRef ? hostRef : this.moduleRef;
  }

  private bindHandler(tool: ClassTool, wrapper: InstanceWrapper): BoundClassTool['handler'] {
    const { target, methodName } = tool;
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const instance = wrapper.instance as Record<string, unknown>;
      const method = instance?.[methodName];
      if (typeof method !== 'function') {
        throw new ToolsConfigurationError(MESSAGES.noMethod(target.name, methodName));
      }
      return method.bind(instance) as BoundClassTool['handler'];
    }
    if (typeof (target.prototype as Record<string, unknown>)[methodName] !== 'function') {
      throw new ToolsConfigurationError(MESSAGES.noMethod(target.name, methodName));
    }
    return async (call) => {
      const contextId = ContextIdFactory.create();
      const request = this.requestContext.request;
      if (request !== undefined) this.moduleRef.registerRequestByContextId(request, contextId);
      const instance = await this.moduleRef.resolve(target, contextId, { strict: false });
      return (instance as any)[methodName](call);
    };
  }

  private checkDecoratedClasses(wrappers: InstanceWrapper[]) {
    const declared = new Set(this.declared);
    const seen = new Set<unknown>();
    for (const { metatype } of wrappers) {
      if (typeof metatype !== 'function' || seen.has(metatype)) continue;
      seen.add(metatype);
      const orphans = orphanToolMethods(metatype);
      if (orphans.length > 0) {
        throw new ToolsConfigurationError(MESSAGES.orphanToolMethods(metatype.name, orphans));
      }
      if (
        getToolClassMetadata(metatype) &&
        !classTools(metatype as Class).some((tool) => declared.has(tool.name))
      ) {
        this.logger.warn(MESSAGES.notInRegistry(metatype.name));
      }
    }
  }
}
