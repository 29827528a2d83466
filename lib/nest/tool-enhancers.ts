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
  private constructor(private readonly toolCall: ToolCall<unknown, unknown>) {}

  /** The tool call of an enhancer's context, or `undefined` when it is not a tool call's. */
  static create(context: ExecutionContext): ToolExecutionContext | undefined {
    if (context.getType<string>() !== TOOL_CONTEXT_TYPE) return undefined;
    const call = context.getArgByIndex<ToolCall<unknown, unknown> | undefined>(CALL_ARG);
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

/** Whether a tool method or its class declares a Nest guard, interceptor, pipe or filter. */
export function declaresEnhancers(target: object, method: object): boolean {
  return [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA].some(
    (key) =>
      (Reflect.getMetadata(key, method) as unknown[] | undefined)?.length ||
      (Reflect.getMetadata(key, target) as unknown[] | undefined)?.length,
  );
}

/**
 * Wraps tool methods with the Nest enhancers declared on them and on their class, through Nest's
 * `ExternalContextCreator`: guards, then interceptors around the method, pipes on its argument
 * (the tool call), and filters on what they throw. The enhancers receive the arguments of an
 * HTTP handler — the current request, its response (Express) and the tool call — and a context of
 * type {@link TOOL_CONTEXT_TYPE}. Global enhancers apply only when `global` is set.
 */
export class ToolEnhancers {
  private readonly creator: ExternalContextCreator;

  constructor(external: ExternalContextCreator, global: boolean) {
    const container = (external as unknown as { container?: NestContainer }).container;
    this.creator =
      global || !container ? external : withoutGlobalEnhancers(container, new ApplicationConfig());
  }

  /**
   * The method wrapped for one instance (and, for a request-scoped one, its context id): a
   * function of the request and the tool call.
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
      undefined,
      TOOL_CONTEXT_TYPE,
    );
    return (request, call) => wrapped(request, responseOf(request), call);
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

function withoutGlobalEnhancers(
  container: NestContainer,
  config: ApplicationConfig,
): ExternalContextCreator {
  const creator = new ExternalContextCreator(
    new GuardsContextCreator(container, config),
    new GuardsConsumer(),
    new InterceptorsContextCreator(container, config),
    new InterceptorsConsumer(),
    container.getModules(),
    new PipesContextCreator(container, config),
    new PipesConsumer(),
    new ExternalExceptionFilterContext(container, config),
  );
  (creator as unknown as { container: NestContainer }).container = container;
  return creator;
}
