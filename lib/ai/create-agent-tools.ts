import { jsonSchema, tool, type JSONSchema7, type Tool, type ToolSet } from 'ai';
import type { ToolLogger } from '../core/hooks.js';
import type { ToolInvoker } from '../core/invoker.js';
import type { CompiledTool } from '../core/runner.js';
import { selectTools, type ToolSelection } from '../core/tool-selection.js';
import type { ToolContext, ToolSource } from '../core/types.js';
import { presentToModel } from './agent-model-output.js';
import { AgentToolError } from './agent-tool-error.js';

/**
 * Options of {@link createAgentTools}.
 *
 * @example
 * createAgentTools(invoker, { context: { tenantId }, exclude: ['billing_void_invoice'], source: 'support-bot' });
 */
export interface AgentToolsOptions extends ToolSelection {
  /**
   * The context of every call made through these tools (a tenant, a user), merged over the
   * context resolved from the current request, if any. Each call also gets the AI SDK's
   * `toolCallId` in its context, so hooks see which model tool call it answers (a context
   * schema that refuses unknown keys, such as `z.strictObject`, must declare it).
   */
  context?: ToolContext;
  /** The audit tag of the calls. @default 'agent' */
  source?: ToolSource;
  /** Where a failing `present.agent` presenter is reported. @default console */
  logger?: Pick<ToolLogger, 'error'>;
}

/**
 * The application's tools as an AI SDK `ToolSet`: every tool exposed on `AGENT` (narrowed by
 * `include` / `exclude`), with its description and its cached JSON Schema. Each call runs
 * through the canonical runner (`transport: 'AGENT'`, `source: 'agent'`) — input validation,
 * context, guards and hooks included, so the SDK does not validate the input itself.
 *
 * - A success returns the tool's data; a tool with `present.agent` shows the model the
 *   presenter's result (`toModelOutput`).
 * - A failure throws an {@link AgentToolError}: the SDK records a `tool-error` and the model reads
 *   the JSON envelope `{ error, message, retryable, details?, hint? }`.
 * - The SDK's `toolCallId` is in the call's context (`context.toolCallId`) for hooks and for
 *   handlers without a context schema; its `abortSignal` cancels the call.
 *
 * Works with `createToolInvoker(...)` and with Nest's injectable `ToolInvoker`. Build the set
 * when the agent runs (after `app.init()`), typically with that run's context.
 *
 * @example
 * // Without Nest
 * const { text } = await generateText({
 *   model,
 *   tools: createAgentTools(invoker, { context: { tenantId } }),
 *   stopWhen: isStepCount(5),
 *   prompt,
 * });
 *
 * @example
 * // In Nest: inject ToolInvoker and build the set per run
 * @Injectable()
 * export class SupportAgent {
 *   constructor(private readonly tools: ToolInvoker) {}
 *
 *   answer(tenantId: string, prompt: string) {
 *     return generateText({ model, prompt, tools: createAgentTools(this.tools, { context: { tenantId } }) });
 *   }
 * }
 *
 * // or provide a factory of tool sets (the invoker is compiled during app.init(), so the
 * // provider returns a function rather than the set itself)
 * { provide: AGENT_TOOLS, inject: [ToolInvoker],
 *   useFactory: (tools: ToolInvoker) => (context: ToolContext) => createAgentTools(tools, { context }) }
 */
export function createAgentTools(invoker: ToolInvoker, options: AgentToolsOptions = {}): ToolSet {
  const tools: ToolSet = {};
  for (const compiled of selectTools(invoker, 'AGENT', options, 'createAgentTools')) {
    tools[compiled.spec.name] = agentTool(invoker, compiled, options);
  }
  return tools;
}

function agentTool(invoker: ToolInvoker, compiled: CompiledTool, options: AgentToolsOptions): Tool {
  const { spec, descriptor } = compiled;
  const { context, source = 'agent', logger = console } = options;
  return tool<unknown, unknown, any>({
    description: descriptor.description,
    // The cached, frozen JSON Schema; no `validate`: the runner is the one validator.
    inputSchema: jsonSchema<unknown>(descriptor.inputSchema as JSONSchema7),
    execute: async (args, { toolCallId, abortSignal }) => {
      const result = await invoker.invoke(spec.name, args, {
        transport: 'AGENT',
        source,
        context: { ...context, toolCallId },
        signal: abortSignal,
        toolCallId,
      });
      if (result.ok) return result.data;
      throw new AgentToolError(result.error);
    },
    ...(spec.present?.agent && {
      toModelOutput: ({ output }) => presentToModel(spec, output, logger),
    }),
  });
}
