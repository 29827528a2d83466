import { ToolMessage } from '@langchain/core/messages';
import { tool, type DynamicStructuredTool, type ToolRunnableConfig } from '@langchain/core/tools';
import type { ToolAsk } from '../core/asking.js';
import type { ToolInvoker } from '../core/invoker.js';
import { toErrorEnvelope } from '../core/result.js';
import type { CompiledTool } from '../core/runner.js';
import { selectTools, type ToolSelection } from '../core/tool-selection.js';
import type { ToolContext, ToolSource } from '../core/types.js';
import { GraphAskRound } from './graph-asking.js';
import { runnerValidatedSchema } from './runner-validated-schema.js';

/**
 * Options of {@link createLangChainTools}.
 *
 * @example
 * createLangChainTools(invoker, { context: { tenantId }, include: ['billing_get_invoice'] });
 */
export interface LangChainToolsOptions extends ToolSelection {
  /**
   * The context of every call made through these tools, merged over the context resolved from
   * the current request, if any. A call made from a LangChain tool call also gets its id in
   * the context (`context.toolCallId`), so hooks see which model tool call it answers (a
   * context schema that refuses unknown keys, such as `z.strictObject`, must declare it).
   */
  context?: ToolContext;
  /** The audit tag of the calls. @default 'langchain' */
  source?: ToolSource;
  /**
   * Answers the handlers' questions (`confirm`, `elicit`) outside a LangGraph graph that can
   * interrupt — a tool invoked directly, or in a graph compiled without a checkpointer — by
   * asking the user while the call waits. Inside a graph with a checkpointer, questions
   * interrupt the graph instead (see {@link createLangChainTools}). Without it, a question goes
   * to the caller of the toolwright call the tool runs in, if any, or fails the call with
   * `USER_INPUT_UNAVAILABLE`, which the model reads in the error envelope.
   *
   * @example
   * createLangChainTools(invoker, {
   *   ask: async (question) => ({
   *     action: (await promptYesNo(question.message)) ? 'accept' : 'decline',
   *   }),
   * });
   */
  ask?: ToolAsk;
}

/** The text a model reads for a success: a string as it is, anything else as JSON. */
function contentOf(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data) ?? 'null';
  } catch {
    return String(data); // a bigint or a cycle: the call succeeded, say something readable
  }
}

/**
 * The application's tools as LangChain structured tools, for LangChain and LangGraph agents
 * (`model.bindTools(tools)`, `createAgent({ tools })`, a `ToolNode`): every tool exposed on
 * `AGENT` (narrowed by `include` / `exclude`), with its description and cached JSON Schema.
 * Each call runs through the canonical runner (`transport: 'AGENT'`, `source: 'langchain'`),
 * which is the one input validator (LangChain does not validate first); the run's abort signal
 * cancels the call.
 *
 * What a tool returns is the text the model reads, as LangChain tools do:
 * - a success: the data, a string as it is and anything else as JSON;
 * - a failure: the JSON envelope `{ error, message, retryable, details?, hint? }` — returned,
 *   not thrown, so the agent loop goes on and the model can correct itself. Invoked with a tool
 *   call (as agents do), a failure is a `ToolMessage` with `status: 'error'`; LangChain wraps a
 *   success in a `ToolMessage` with `status: 'success'` itself.
 *
 * A handler's question (`confirm`, `elicit`), in a LangGraph graph compiled with a checkpointer
 * (a `ToolNode`, an agent built on one), `interrupt()`s the graph with a `ToolInterrupt`; the
 * application resumes it with `new Command({ resume: answer })`, `answer` being a `ToolAnswer`.
 * LangGraph then runs the node again from the start, and the handler with it: the questions
 * asked before get their answers back, in order. The round that stopped at the question ends
 * with `INPUT_REQUIRED` for hooks and events. Elsewhere, questions go to the `ask` option.
 * `@langchain/langgraph` is loaded only when a question is asked inside a graph.
 *
 * `present.agent` is the AI SDK's presentation and does not apply here. Works with
 * `createToolInvoker(...)` and with Nest's injectable `ToolInvoker` (after `app.init()`).
 *
 * @example
 * const tools = createLangChainTools(invoker, { context: { tenantId } });
 * const ai = await model.bindTools(tools).invoke(messages);
 * for (const call of ai.tool_calls ?? []) {
 *   messages.push(await tools.find((t) => t.name === call.name)!.invoke(call)); // a ToolMessage
 * }
 *
 * @example
 * // In a graph with a checkpointer: a question stops it, Command({ resume }) answers it.
 * const state = await graph.invoke({ messages }, config);
 * if (isInterrupted<ToolInterrupt>(state)) {
 *   const question = state[INTERRUPT][0].value!; // { type: 'toolwright/question', kind: 'confirm', … }
 *   const action = (await promptYesNo(question.message)) ? 'accept' : 'decline';
 *   await graph.invoke(new Command({ resume: { action } }), config);
 * }
 */
export function createLangChainTools(
  invoker: ToolInvoker,
  options: LangChainToolsOptions = {},
): DynamicStructuredTool[] {
  return selectTools(invoker, 'AGENT', options, 'createLangChainTools').map((compiled) =>
    langChainTool(invoker, compiled, options),
  );
}

function langChainTool(
  invoker: ToolInvoker,
  { spec, descriptor }: CompiledTool,
  { context, source = 'langchain', ask }: LangChainToolsOptions,
): DynamicStructuredTool {
  const run = async (args: unknown, config?: ToolRunnableConfig) => {
    const toolCallId = config?.toolCall?.id;
    const asking = new GraphAskRound(config, ask);
    const result = await invoker.invoke(spec.name, args, {
      transport: 'AGENT',
      source,
      context: toolCallId === undefined ? context : { ...context, toolCallId },
      signal: config?.signal,
      toolCallId,
      ask: asking.ask,
    });
    asking.settle();
    if (result.ok) return contentOf(result.data);
    const envelope = JSON.stringify(toErrorEnvelope(result.error));
    if (toolCallId === undefined) return envelope;
    return new ToolMessage({
      content: envelope,
      tool_call_id: toolCallId,
      name: spec.name,
      status: 'error',
    });
  };
  return tool(run, {
    name: spec.name,
    description: descriptor.description,
    schema: runnerValidatedSchema(descriptor.inputSchema),
  }) as DynamicStructuredTool;
}
