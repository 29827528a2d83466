import {
  defineRuntimeTool,
  type NoInput,
  type RuntimeTool,
  type RuntimeToolConfig,
  type ToolInputSchema,
} from './runtime-tool.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import { isToolSchema, type ToolSchema } from './schema.js';
import type { ToolMethod } from './types.js';

/** The options of {@link createRuntimeToolFactory}. */
export interface RuntimeToolFactoryOptions<C extends ToolSchema> {
  serviceName: string;
  scope?: string;
  meta?: Record<string, unknown>;
  /** The context every tool of the factory needs; any schema whose output is an object. */
  context: C;
}

/** What `factory.define` takes: a runtime tool without identity or context, plus `action` and `method`. */
export type FactoryToolConfig<
  I extends ToolInputSchema,
  O extends ToolSchema | undefined,
  C extends ToolSchema,
> = Omit<RuntimeToolConfig<I, O, C>, 'identity' | 'context'> & {
  action: string;
  method: ToolMethod;
  /** Replaces the factory's `meta` for this tool. */
  meta?: Record<string, unknown>;
};

/** A factory of tools that share a service identity and a context schema. */
export interface RuntimeToolFactory<C extends ToolSchema> {
  readonly serviceName: string;
  readonly scope?: string;
  readonly context: C;
  define<I extends ToolInputSchema = NoInput, O extends ToolSchema | undefined = undefined>(
    config: FactoryToolConfig<I, O, C>,
  ): RuntimeTool<I, O, C>;
}

/**
 * Binds a service identity and a context schema once; each `define` returns an ordinary runtime
 * tool. The context is parsed by the runner once per call, never cached, and the handler sees
 * only the declared keys.
 *
 * @example
 * const billing = createRuntimeToolFactory({
 *   serviceName: 'billing',
 *   scope: 'tenant',
 *   context: z.object({ tenantId: z.string() }),
 * });
 * export const getInvoice = billing.define({
 *   action: 'getInvoice',
 *   method: 'GET',
 *   description: 'Fetch one invoice',
 *   input: z.object({ id: z.string() }),
 *   handler: ({ input, context }) => invoices.find(context.tenantId, input.id),
 * });
 */
export function createRuntimeToolFactory<C extends ToolSchema>(
  options: RuntimeToolFactoryOptions<C>,
): RuntimeToolFactory<C> {
  const { serviceName, scope, meta, context } = options;
  if (!isToolSchema(context)) {
    throw new ToolsConfigurationError(CORE_MESSAGES.factoryContext(serviceName));
  }
  return Object.freeze({
    serviceName,
    scope,
    context,
    define<I extends ToolInputSchema = NoInput, O extends ToolSchema | undefined = undefined>(
      config: FactoryToolConfig<I, O, C>,
    ): RuntimeTool<I, O, C> {
      const toolMeta = config.meta ?? meta;
      return defineRuntimeTool<I, O, C>({
        name: config.name,
        description: config.description,
        input: config.input,
        output: config.output,
        transports: config.transports,
        annotations: config.annotations,
        timeoutMs: config.timeoutMs,
        present: config.present,
        scopes: config.scopes,
        tags: config.tags,
        asks: config.asks,
        task: config.task,
        icons: config.icons,
        _meta: config._meta,
        handler: config.handler,
        // Written from the factory only: a definition cannot override service, scope or context.
        identity: {
          serviceName,
          action: config.action,
          method: config.method,
          ...(scope !== undefined && { scope }),
          ...(toolMeta !== undefined && { meta: toolMeta }),
        },
        context,
      });
    },
  });
}
