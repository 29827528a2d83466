import {
  Inject,
  Injectable,
  Logger,
  Optional,
  Scope,
  type OnApplicationBootstrap,
  type Type,
} from '@nestjs/common';
import {
  ContextIdFactory,
  DiscoveryService,
  ExternalContextCreator,
  HttpAdapterHost,
  ModuleRef,
  type ContextId,
} from '@nestjs/core';
// Nest's own classes and symbol (the files its injector and router import), matched by identity.
import { UnknownElementException } from '@nestjs/core/errors/exceptions/unknown-element.exception.js';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { REQUEST_CONTEXT_ID } from '@nestjs/core/router/request/request-constants.js';
import type { ToolGuard } from '../core/hooks.js';
import type { BoundClassTool, ClassToolBinder } from '../core/invoker.js';
import type { Completer } from '../core/operations.js';
import type { ToolDefinition } from '../core/registry.js';
import { classTools, getToolClassMetadata, type ClassTool } from '../core/tool-class.js';
import type { Class, ToolCallInfo } from '../core/types.js';
import { orphanToolMethods } from './decorators/tool-class.draft.js';
import type { ToolsModuleFactoryOptions } from './interfaces/tools-module-options.interface.js';
import { MCP_OPTIONS } from './mcp/mcp.constants.js';
import type { ResolvedMcpOptions } from './mcp/mcp-options.js';
import { ToolRequestContext } from './request-context.js';
import { declaresGuards, declaresHandlerEnhancers, ToolEnhancers } from './tool-enhancers.js';
import { TOOLS_DECLARED, TOOLS_MODULE_OPTIONS } from './tools.constants.js';
import { MESSAGES, ToolsConfigurationError } from './tools.messages.js';
import { unreachableOperations, unreachableOperationsWarning } from './unreachable-operations.js';

/** What a hook, guard or context-resolver class is used as, for bootstrap errors. */
export type ToolClassRole = 'hook' | 'guard' | 'context resolver';

/**
 * Finds the container's instances of the registry's tool classes and binds each `@Tool` method:
 * a static class once, at bootstrap; a request-scoped one per call, in the current request's DI
 * sub-tree (the one Nest's router uses for that request), or in a fresh one outside a request.
 * Also resolves hook, guard and resolver classes, once, at bootstrap, and warns then of the
 * operations no MCP client can reach (scopes, and no way for an MCP caller to hold them).
 */
@Injectable()
export class ToolsExplorer implements OnApplicationBootstrap {
  private readonly logger = new Logger('ToolsModule');
  private readonly enhancers: ToolEnhancers;
  private readonly globalEnhancers: boolean;
  private readonly contextResolver: boolean;
  /** The tools explored, for the bootstrap checks. */
  private explored: readonly ToolDefinition[] = [];
  /** The DI context of a call outside a request, shared by its Nest guards and its handler. */
  private readonly callContexts = new WeakMap<ToolCallInfo, ContextId>();

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(ToolRequestContext) private readonly requestContext: ToolRequestContext,
    @Inject(TOOLS_DECLARED) private readonly declared: readonly string[],
    @Inject(ExternalContextCreator) external: ExternalContextCreator,
    @Inject(TOOLS_MODULE_OPTIONS) options: ToolsModuleFactoryOptions,
    @Inject(MCP_OPTIONS) private readonly mcp: ResolvedMcpOptions,
    @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.globalEnhancers = options.globalEnhancers === true;
    this.contextResolver = options.context !== undefined;
    const container = (external as unknown as { container: NestContainer }).container;
    this.enhancers = new ToolEnhancers(container, this.globalEnhancers);
  }

  /** Checks the registry against the container and returns the binder for its class tools. */
  async explore(tools: readonly ToolDefinition[]): Promise<ClassToolBinder> {
    this.explored = tools;
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
      const guards = await Promise.all(
        tool.guards.map((guard) =>
          this.instance(guard as ToolGuard | Class<ToolGuard>, 'guard', hostRef),
        ),
      );
      // Nest guards on the method or its class run in the same step, after the tool's own.
      const nestGuards = this.bindNestGuards(tool, wrapper);
      bound.set(tool, {
        handler: this.bindHandler(tool, wrapper),
        methods: (name) => this.bindCompleter(tool.target, name, wrapper),
        guards: nestGuards ? [...guards, nestGuards] : guards,
      });
    }
    return (tool) => bound.get(tool)!;
  }

  /**
   * Warns, once, of the tools, resources and prompts no MCP client can ever reach (see
   * {@link unreachableOperations}). Only an application that listens serves MCP over HTTP: an
   * application context (the command line, a worker) warns of nothing.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.adapterHost?.httpAdapter) return;
    const unreachable = unreachableOperations(this.explored, {
      servesMcpOverHttp: await this.servesMcp(),
      signIn: this.mcpEndpoints().some((endpoint) => endpoint.auth !== undefined),
      contextResolver: this.contextResolver,
    });
    if (unreachable.length > 0) this.logger.warn(unreachableOperationsWarning(unreachable));
  }

  /** The options of every MCP endpoint of the module: `mcp`, and those of `mcp.endpoints`. */
  private mcpEndpoints(): readonly ResolvedMcpOptions[] {
    return [this.mcp, ...this.mcp.endpoints];
  }

  /** Whether some controller serves an MCP endpoint: a mounted one, or the application's own. */
  private async servesMcp(): Promise<boolean> {
    if (this.mcpEndpoints().some((endpoint) => endpoint.mount)) return true;
    // Loaded here: the endpoint's module imports the invoker, which imports this one.
    const { McpEndpoint } = await import('./mcp/mcp-endpoint.controller.js');
    return this.discovery
      .getControllers()
      .some(
        ({ metatype }) =>
          typeof metatype === 'function' && metatype.prototype instanceof McpEndpoint,
      );
  }

  /**
   * The instance behind a class reference, resolved once at bootstrap: the container's provider,
   * or, when no module provides the class, a new one built by DI in the context of `moduleRef`
   * (ToolsModule's by default). A provided class the container cannot hand out as a single
   * instance (request-scoped, transient, or with request-scoped dependencies) stops bootstrap:
   * building a second, unscoped copy behind the application's back would be wrong.
   */
  async instance<T extends object>(
    ref: T | Class<T>,
    role: ToolClassRole,
    moduleRef: ModuleRef = this.moduleRef,
  ): Promise<T> {
    if (typeof ref !== 'function') return ref;
    const type = ref as Class<T>;
    try {
      return moduleRef.get(type, { strict: false });
    } catch (error) {
      if (!(error instanceof UnknownElementException)) {
        throw new ToolsConfigurationError(this.unresolvable(type, role, error), { cause: error });
      }
    }
    return moduleRef.create(type as Type<T>);
  }

  /** Why the container would not hand out a provided class as one instance. */
  private unresolvable(type: Class, role: ToolClassRole, error: unknown): string {
    const wrapper = this.discovery.getProviders().find((candidate) => candidate.token === type);
    const reason =
      wrapper === undefined
        ? undefined
        : wrapper.scope === Scope.REQUEST
          ? 'is request-scoped'
          : wrapper.isTransient
            ? 'is transient'
            : !wrapper.isDependencyTreeStatic()
              ? 'depends on a request-scoped provider'
              : undefined;
    return reason === undefined
      ? MESSAGES.unresolvedClass(type.name, role, (error as Error)?.message ?? String(error))
      : MESSAGES.scopedClass(type.name, role, reason);
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
      // A tool without Nest enhancers is its method, bound: it costs nothing more.
      if (!this.wrapsHandler(target, method)) {
        return method.bind(instance) as BoundClassTool['handler'];
      }
      const wrapped = this.enhancers.wrap(instance, methodName);
      return (call) => wrapped(this.requestContext.request, call);
    }
    const method = (target.prototype as Record<string, unknown>)[methodName];
    if (typeof method !== 'function') {
      throw new ToolsConfigurationError(MESSAGES.noMethod(target.name, methodName));
    }
    const isTreeDurable = wrapper.isDependencyTreeDurable();
    const enhanced = this.wrapsHandler(target, method);
    return async (call) => {
      const request = this.requestContext.request;
      const contextId = this.callContextId(request, call.call, isTreeDurable);
      const instance = await this.moduleRef.resolve(target, contextId, { strict: false });
      if (!enhanced) return (instance as any)[methodName](call);
      return this.enhancers.wrap(instance, methodName, contextId)(request, call);
    };
  }

  /**
   * A method of a tool class named as a completer, on the container's instance (resolved per
   * request for a request-scoped class). Enhancers do not apply: a completion is not a call.
   */
  private bindCompleter(target: Class, name: string, wrapper: InstanceWrapper): Completer {
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const instance = wrapper.instance as Record<string, Completer>;
      return (value, options) => instance[name](value, options);
    }
    const isTreeDurable = wrapper.isDependencyTreeDurable();
    return async (value, options) => {
      const contextId = this.contextIdOf(this.requestContext.request, isTreeDurable);
      const instance = await this.moduleRef.resolve(target, contextId, { strict: false });
      return (instance as Record<string, Completer>)[name](value, options);
    };
  }

  /**
   * The Nest guards of a tool method and its class (and the global ones, with `globalEnhancers`)
   * as one tool guard, or `undefined` when there are none. A request-scoped class's guards are
   * resolved per call, in the call's DI context (the one its handler then runs in).
   */
  private bindNestGuards(tool: ClassTool, wrapper: InstanceWrapper): ToolGuard | undefined {
    const { target, methodName } = tool;
    const method = (target.prototype as Record<string, unknown>)[methodName];
    if (typeof method !== 'function') return undefined;
    if (!this.globalEnhancers && !declaresGuards(target, method)) return undefined;
    const moduleKey = wrapper.host?.token ?? '';
    if (wrapper.isDependencyTreeStatic() && !wrapper.isTransient) {
      const check = this.enhancers.guards(wrapper.instance as object, methodName, moduleKey);
      if (!check) return undefined;
      return {
        canActivate: ({ input, context, call }) =>
          check(this.requestContext.request, { input, context, call }),
      };
    }
    const isTreeDurable = wrapper.isDependencyTreeDurable();
    return {
      canActivate: async ({ input, context, call }) => {
        const request = this.requestContext.request;
        const contextId = this.callContextId(request, call, isTreeDurable);
        const instance = await this.moduleRef.resolve(target, contextId, { strict: false });
        const check = this.enhancers.guards(instance as object, methodName, moduleKey, contextId);
        return check ? check(request, { input, context, call }) : true;
      },
    };
  }

  /** Whether a tool's handler runs through Nest's interceptors, pipes and filters. */
  private wrapsHandler(target: Class, method: object): boolean {
    return this.globalEnhancers || declaresHandlerEnhancers(target, method);
  }

  /**
   * The DI context of a call (see {@link contextIdOf}); outside a request, the same one for the
   * call's Nest guards and its handler.
   */
  private callContextId(request: unknown, call: ToolCallInfo, isTreeDurable: boolean): ContextId {
    if (request !== undefined) return this.contextIdOf(request, isTreeDurable);
    let contextId = this.callContexts.get(call);
    if (!contextId) this.callContexts.set(call, (contextId = ContextIdFactory.create()));
    return contextId;
  }

  /**
   * The DI context of a call. Inside a request it is the request's own sub-tree, the one Nest's
   * router resolves the controller in (`ContextIdFactory.getByRequest`), so the tool shares that
   * request's request-scoped providers; it is attached to the request, with the request
   * registered, as the router does, unless Nest has done so already. The current request is the
   * object the router gets: Express's request, or Fastify's (linked from the raw one). Outside a
   * request, every call gets a fresh context.
   */
  private contextIdOf(request: unknown, isTreeDurable: boolean): ContextId {
    const isObject =
      (typeof request === 'object' && request !== null) || typeof request === 'function';
    if (!isObject || !Object.isExtensible(request)) {
      const contextId = ContextIdFactory.create();
      if (request !== undefined) this.moduleRef.registerRequestByContextId(request, contextId);
      return contextId;
    }
    const contextId = ContextIdFactory.getByRequest(request);
    const target = request as Record<symbol, unknown>;
    if (!target[REQUEST_CONTEXT_ID]) {
      Object.defineProperty(target, REQUEST_CONTEXT_ID, {
        value: contextId,
        enumerable: false,
        writable: false,
        configurable: false,
      });
      const provided = isTreeDurable ? contextId.payload : Object.assign(target, contextId.payload);
      this.moduleRef.registerRequestByContextId(provided, contextId);
    }
    return contextId;
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
