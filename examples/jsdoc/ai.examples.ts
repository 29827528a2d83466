/**
 * The `@example` blocks of toolwright/ai's declarations: the AI SDK tool set and its failures.
 * Each `//#region <key>` is the example of the declaration it names, copied into its JSDoc by
 * `node scripts/sync-jsdoc-examples.mjs --write`; what an example uses without declaring it is
 * stubbed here.
 */
import { Injectable } from '@nestjs/common';
import {
  generateText,
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  type ToolCallPart,
  type ToolSet,
} from 'ai';
import { ToolInvoker } from 'toolwright';
import type { ToolContext } from 'toolwright/core';
import { AgentToolError, createAgentTools } from 'toolwright/ai';

declare const invoker: ToolInvoker;
declare const model: LanguageModel;
declare const prompt: string;
declare const tenantId: string;
declare const messages: ModelMessage[];
declare const tools: ToolSet;
declare const AGENT_TOOLS: symbol;
declare function showForm(message: string, schema: object): Promise<Record<string, unknown>>;
declare function showDialog(message: string): Promise<boolean>;
declare function userApproves(calls: ToolCallPart[]): Promise<boolean>;

export function options() {
  //#region AgentToolsOptions
  createAgentTools(invoker, {
    context: { tenantId },
    exclude: ['billing_void_invoice'],
    source: 'support-bot',
  });
  //#endregion
  //#region AgentToolsOptions.ask
  createAgentTools(invoker, {
    ask: async (question) =>
      question.kind === 'elicit'
        ? { action: 'accept', content: await showForm(question.message, question.requestedSchema) }
        : { action: (await showDialog(question.message)) ? 'accept' : 'decline' },
  });
  //#endregion
}

export async function withoutNest() {
  //#region createAgentTools
  // Without Nest
  const { text } = await generateText({
    model,
    tools: createAgentTools(invoker, { context: { tenantId } }),
    stopWhen: isStepCount(5),
    prompt,
  });
  //#endregion
  return text;
}

//#region createAgentTools
// In Nest: inject ToolInvoker and build the set per run
@Injectable()
export class SupportAgent {
  constructor(private readonly tools: ToolInvoker) {}

  answer(tenantId: string, prompt: string) {
    return generateText({
      model,
      prompt,
      tools: createAgentTools(this.tools, { context: { tenantId } }),
    });
  }
}

// or provide a factory of tool sets (the invoker is compiled during app.init(), so the
// provider returns a function rather than the set itself)
export const agentTools = {
  provide: AGENT_TOOLS,
  inject: [ToolInvoker],
  useFactory: (tools: ToolInvoker) => (context: ToolContext) =>
    createAgentTools(tools, { context }),
};
//#endregion

export async function approval() {
  //#region createAgentTools
  // A tool with asks: { confirm: true }: the run stops at the approval request; the next run
  // executes the tool (approved) or tells the model it was denied
  const first = await generateText({ model, tools, messages });
  messages.push(...first.responseMessages);
  const requests = first.finalStep.content.filter((part) => part.type === 'tool-approval-request');
  if (requests.length > 0) {
    const approved = await userApproves(requests.map(({ toolCall }) => toolCall));
    messages.push({
      role: 'tool',
      content: requests.map(({ approvalId }) => ({
        type: 'tool-approval-response',
        approvalId,
        approved,
      })),
    });
    const second = await generateText({ model, tools, messages });
    messages.push(...second.responseMessages); // the tool's result (or its denial), then the answer
  }
  //#endregion
}

export async function failures() {
  const result = await generateText({ model, tools, prompt });
  //#region AgentToolError
  const failed = result.steps.flatMap((s) => s.content).find((part) => part.type === 'tool-error');
  if (failed?.error instanceof AgentToolError) console.warn(failed.error.envelope.error); // 'CONFLICT'
  //#endregion
}
