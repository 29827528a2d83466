import { jsonSchema, tool, type JSONSchema7, type Tool, type ToolSet } from 'ai';
import { inputUnavailable, type ToolAnswer, type ToolAsk } from '../core/asking.js';
import { currentToolCall } from '../core/call-context.js';
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
 * createAgentTools(invoker, {
 *   context: { tenantId },
 *   exclude: ['billing_void_invoice'],
 *   source: 'support-bot',
 * });
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
  /**
   * Answers the handlers' `elicit` questions by asking the user (a form in the chat, a prompt)
   * while the tool call waits. It also gets the `confirm` of a call made inside another tool's
   * call, which the SDK's approval does not cover. Without it, such a question fails the call
   * with `USER_INPUT_UNAVAILABLE`, which the model reads in the error envelope. A confirming
   * tool's own `confirm` never reaches it: the SDK's tool approval answers that one.
   *
   * @example
   * createAgentTools(invoker, {
   *   ask: async (question) =>
   *     question.kind === 'elicit'
   *       ? { action: 'accept', content: await showForm(question.message, question.requestedSchema) }
   *       : { action: (await showDialog(question.message)) ? 'accept' : 'decline' },
   * });
   */
  ask?: ToolAsk;
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
 * - A tool that declares `asks: { confirm: true }` gets the SDK's tool approval
 *   (`needsApproval: true`): `generateText` / `streamText` stop with a `tool-approval-request`
 *   instead of running it, and the application answers with a `tool-approval-response` in the
 *   next call's messages. Approved, the SDK runs the tool and every `confirm` of that call
 *   resolves `true` without asking again; denied, the handler never runs and the model reads an
 *   `execution-denied` result. A `toolApproval` passed to `generateText` takes precedence over
 *   `needsApproval`: a call it lets run without asking the user confirms all the same.
 * - A handler's `elicit` goes to the `ask` option; without it the call fails with
 *   `USER_INPUT_UNAVAILABLE`.
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
 *     return generateText({
 *       model,
 *       prompt,
 *       tools: createAgentTools(this.tools, { context: { tenantId } }),
 *     });
 *   }
 * }
 *
 * // or provide a factory of tool sets (the invoker is compiled during app.init(), so the
 * // provider returns a function rather than the set itself)
 * export const agentTools = {
 *   provide: AGENT_TOOLS,
 *   inject: [ToolInvoker],
 *   useFactory: (tools: ToolInvoker) => (context: ToolContext) =>
 *     createAgentTools(tools, { context }),
 * };
 *
 * @example
 * // A tool with asks: { confirm: true }: the run stops at the approval request; the next run
 * // executes the tool (approved) or tells the model it was denied
 * const first = await generateText({ model, tools, messages });
 * messages.push(...first.responseMessages);
 * const requests = first.finalStep.content.filter((part) => part.type === 'tool-approval-request');
 * if (requests.length > 0) {
 *   const approved = await userApproves(requests.map(({ toolCall }) => toolCall));
 *   messages.push({
 *     role: 'tool',
 *     content: requests.map(({ approvalId }) => ({
 *       type: 'tool-approval-response',
 *       approvalId,
 *       approved,
 *     })),
 *   });
 *   const second = await generateText({ model, tools, messages });
 *   messages.push(...second.responseMessages); // the tool's result (or its denial), then the answer
 * }
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
  const confirming = spec.asks?.confirm === true;
  return tool<unknown, unknown, any>({
    description: descriptor.description,
    // The cached, frozen JSON Schema; no `validate`: the runner is the one validator.
    inputSchema: jsonSchema<unknown>(descriptor.inputSchema as JSONSchema7),
    ...(confirming && { needsApproval: true }),
    execute: async (args, { toolCallId, abortSignal }) => {
      const result = await invoker.invoke(spec.name, args, {
        transport: 'AGENT',
        source,
        context: { ...context, toolCallId },
        signal: abortSignal,
        toolCallId,
        ask: answering(spec.name, confirming, options.ask),
      });
      if (result.ok) return result.data;
      throw new AgentToolError(result.error);
    },
    ...(spec.present?.agent && {
      toModelOutput: ({ output }) => presentToModel(spec, output, logger),
    }),
  });
}

const APPROVED: ToolAnswer = Object.freeze({ action: 'accept' });

/**
 * How one execution of a tool answers its questions. The SDK executes a confirming tool only
 * once its call is approved, so the `confirm` of that call (and of no call made inside it)
 * accepts; every other question goes to the application's `ask`. Made in `execute`, where the
 * enclosing call (when an agent runs inside a tool) is the new call's parent.
 */
function answering(
  name: string,
  confirming: boolean,
  ask: ToolAsk | undefined,
): ToolAsk | undefined {
  if (!confirming && !ask) return undefined;
  const parentId = currentToolCall()?.id;
  return (question, options) => {
    const { call } = question;
    const own = call.name === name && call.parentId === parentId;
    if (question.kind === 'confirm' && confirming && own) return APPROVED;
    if (!ask) throw inputUnavailable(call.name);
    return ask(question, options);
  };
}
