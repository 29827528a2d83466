import type { ExecutionContext } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import { ApplicationConfig, ExternalContextCreator, type ContextId } from '@nestjs/core';
// Nest's own building blocks of ExternalContextCreator, as @nestjs/graphql and
// @nestjs/microservices use it: built here over an ApplicationConfig of our choosing.
import { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
import { GuardsConsumer, GuardsContextCreator } from '@nestjs/core/guards/index.js';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import {
  InterceptorsConsumer,
  InterceptorsContextCreator,
} from '@nestjs/core/interceptors/index.js';
import { PipesConsumer, PipesContextCreator } from '@nestjs/core/pipes/index.js';
import { principalOf, type ToolPrincipal } from '../core/principal.js';
import type { ToolCall } from '../core/runtime-tool.js';
import type { ToolCallInfo } from '../core/types.js';

/**
 * What `ExecutionContext.getType()` answers for a tool call: `'toolwright'`, as `@nestjs/graphql`
 * answers `'graphql'`. The arguments are still those of an HTTP handler when the call happens
 * inside a request (`switchToHttp().getRequest()` is that request), so an HTTP guard works
 * unchanged, unless it refuses every type but `'http'`.
 */
export const TOOL_CONTEXT_TYPE = 'toolwright';

// Where the tool call sits in the arguments enhancers see: after the request and the response.
const CALL_ARG = 2;
// The parameter metadata that hands the tool call to the method (its only parameter).
const TOOL_ARGS_METADATA = 'toolwright:tool-args';
const CALL_PARAM = 0;

/**
 * A tool call as a Nest enhancer sees it, from its `ExecutionContext`.
 *
 * @example
 * @Injectable()
 * export class AuditInterceptor implements NestInterceptor {
 *   intercept(context: ExecutionContext, next: CallHandler) {
 *     const tool = ToolExecutionContext.create(context);
 *     if (tool) console.log(tool.name, tool.transport);
 *     return next.handle();
 *   }
 * }
 */
export class ToolExecutionContext {
  private constructor(private readonly toolCall: GuardedCall) {}

  /** The tool call of an enhancer's context, or `undefined` when it is not a tool call's. */
  static create(context: ExecutionContext): ToolExecutionContext | undefined {
    if (context.getType<string>() !== TOOL_CONTEXT_TYPE) return undefined;
    const call = context.getArgByIndex<GuardedCall | undefined>(CALL_ARG);
    return call ? new ToolExecutionContext(call) : undefined;
  }

  /** The tool's name. */
  get name(): string {
    return this.toolCall.call.name;
  }

  /** The call's identity in the runner: id, transport, source, depth. */
  get call(): ToolCallInfo {
    return this.toolCall.call;
  }

  /** The surface the call came from. */
  get transport(): ToolCallInfo['transport'] {
    return this.toolCall.call.transport;
  }

  /** The parsed input. */
  get input(): unknown {
    return this.toolCall.input;
  }

  /** The call's context (parsed by the tool's context schema, when it has one). */
  get context(): unknown {
    return this.toolCall.context;
  }

  /** The verified principal, when the call has one (see `ToolPrincipal`). */
  get principal(): ToolPrincipal | undefined {
    return principalOf(this.toolCall.context as Record<string, unknown> | undefined);
  }
}

/** What a tool method or its class may declare for Nest's enhancers, by the step they run in. */
const HANDLER_ENHANCERS = [INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA];

function declares(keys: readonly string[], target: object, method: object): boolean {
  return keys.some(
    (key) =>
      (Reflect.getMetadata(key, method) as unknown[] | undefined)?.length ||
      (Reflect.getMetadata(key, target) as unknown[] | undefined)?.length,
  );
}

/** Whether a tool method or its class declares a Nest guard (run in the pipeline's guards step). */
export const declaresGuards = (target: object, method: object) =>
  declares([GUARDS_METADATA], target, method);

/** Whether a tool method or its class declares an interceptor, a pipe or a filter (run around the handler). */
export const declaresHandlerEnhancers = (target: object, method: object) =>
  declares(HANDLER_ENHANCERS, target, method);

/** What a Nest guard on a tool sees as the tool call: the guards step runs before the handler. */
export type GuardedCall = Pick<ToolCall<unknown, unknown>, 'input' | 'context' | 'call'>;

/**
 * Runs tool methods with the Nest enhancers declared on them and on their class, as Nest's
 * `ExternalContextCreator` does for `@nestjs/graphql` and `@nestjs/microservices`:
 * - guards ({@link guards}) in the pipeline's guards step, after the tool's own guards;
 * - interceptors around the method, pipes on its argument (the tool call), and filters on what
 *   they throw ({@link wrap}).
 * The enhancers receive the arguments of an HTTP handler — the current request, its response
 * (Express) and the tool call — and a context of type {@link TOOL_CONTEXT_TYPE}. Global enhancers
 * apply only when `global` is set.
 */
export class ToolEnhancers {
  private readonly creator: ExternalContextCreator;
  private readonly guardsCreator: GuardsContextCreator;
  private readonly guardsConsumer = new GuardsConsumer();

  constructor(container: NestContainer, global: boolean) {
    const config = (global && container.applicationConfig) || new ApplicationConfig();
    this.guardsCreator = new GuardsContextCreator(container, config);
    this.creator = new ExternalContextCreator(
      this.guardsCreator,
      this.guardsConsumer,
      new InterceptorsContextCreator(container, config),
      new InterceptorsConsumer(),
      container.getModules(),
      new PipesContextCreator(container, config),
      new PipesConsumer(),
      new QuietFilterContext(container, config),
    );
    (this.creator as unknown as { container: NestContainer }).container = container;
  }

  /**
   * The Nest guards of a method for one instance (and, for a request-scoped one, its context id),
   * declared in the module `moduleKey`: a function of the request and the tool call that answers
   * whether every guard lets the call run, or `undefined` when there are none.
   */
  guards(
    instance: object,
    methodName: string,
    moduleKey: string,
    contextId?: ContextId,
  ): ((request: unknown, call: GuardedCall) => Promise<boolean>) | undefined {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    const guards = this.guardsCreator.create(instance as never, method, moduleKey, contextId);
    if (guards.length === 0) return undefined;
    return (request, call) =>
      this.guardsConsumer.tryActivate(
        guards,
        [request, responseOf(request), call],
        instance as never,
        method,
        TOOL_CONTEXT_TYPE,
      );
  }

  /**
   * The method wrapped for one instance (and, for a request-scoped one, its context id) with its
   * interceptors, pipes and filters: a function of the request and the tool call.
   */
  wrap(
    instance: object,
    methodName: string,
    contextId?: ContextId,
    inquirerId?: string,
  ): (request: unknown, call: ToolCall<unknown, unknown>) => Promise<unknown> {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    declareCallParameter(instance, methodName);
    const wrapped = this.creator.create(
      instance as never,
      method,
      methodName,
      TOOL_ARGS_METADATA,
      CALL_PARAMS,
      contextId,
      inquirerId,
      { guards: false, interceptors: true, filters: true },
      TOOL_CONTEXT_TYPE,
    );
    return (request, call) => wrapped(request, responseOf(request), call);
  }
}

/**
 * Nest's filter context for external handlers, without the error line Nest's fallback writes for
 * what no filter takes: the runner answers that failure and logs it only when it is unexpected.
 */
class QuietFilterContext extends ExternalExceptionFilterContext {
  override create(...args: Parameters<ExternalExceptionFilterContext['create']>) {
    const handler = super.create(...args);
    handler.next = (exception, host) => {
      const answer = handler.invokeCustomFilters(exception, host);
      // No filter took it: Nest 12 says so with undefined, Nest 11 with null.
      if (answer === undefined || answer === null) throw exception;
      return answer;
    };
    return handler;
  }
}

/** Hands the tool call (the third argument) to the parameter marked as the call. */
const CALL_PARAMS = {
  exchangeKeyForValue: (type: number, _data: unknown, args: unknown[]) =>
    type === CALL_PARAM ? args[CALL_ARG] : undefined,
};

/** Marks the method's first parameter as the tool call, on the class that declares the method. */
function declareCallParameter(instance: object, methodName: string): void {
  let host = Object.getPrototypeOf(instance) as object | null;
  while (host && !Object.hasOwn(host, methodName)) host = Object.getPrototypeOf(host);
  const target = host?.constructor ?? (instance as object).constructor;
  if (Reflect.hasOwnMetadata(TOOL_ARGS_METADATA, target, methodName)) return;
  Reflect.defineMetadata(
    TOOL_ARGS_METADATA,
    { [`${CALL_PARAM}:0`]: { index: 0, data: undefined, pipes: [] } },
    target,
    methodName,
  );
}

/** Express hangs the response on the request; Fastify's reply is not reachable from it. */
function responseOf(request: unknown): unknown {
  return (request as { res?: unknown } | undefined)?.res;
}
