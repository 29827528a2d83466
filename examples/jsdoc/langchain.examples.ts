/**
 * The `@example` blocks of toolwright/langchain's declarations: the LangChain tools and the
 * LangGraph interrupts of their questions. Each `//#region <key>` is the example of the
 * declaration it names, copied into its JSDoc by `node scripts/sync-jsdoc-examples.mjs
 * --write`; what an example uses without declaring it is stubbed here.
 */
/* eslint-disable @typescript-eslint/no-unused-expressions -- an example may show a value */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  Command,
  INTERRUPT,
  isInterrupted,
  MessagesAnnotation,
  type CompiledStateGraph,
} from '@langchain/langgraph';
import type { ToolInvoker } from 'toolwright/core';
import { createLangChainTools, isToolInterrupt, type ToolInterrupt } from 'toolwright/langchain';

declare const invoker: ToolInvoker;
declare const model: BaseChatModel & { bindTools: NonNullable<BaseChatModel['bindTools']> };
declare const messages: BaseMessage[];
declare const tenantId: string;
declare const graph: CompiledStateGraph<typeof MessagesAnnotation.State, any>;
declare const config: RunnableConfig;
declare const state: Awaited<ReturnType<typeof graph.invoke>>;
declare function promptYesNo(message: string): Promise<boolean>;

export function options() {
  //#region LangChainToolsOptions
  createLangChainTools(invoker, { context: { tenantId }, include: ['billing_get_invoice'] });
  //#endregion
  //#region LangChainToolsOptions.ask
  createLangChainTools(invoker, {
    ask: async (question) => ({
      action: (await promptYesNo(question.message)) ? 'accept' : 'decline',
    }),
  });
  //#endregion
}

export async function tools() {
  //#region createLangChainTools
  const tools = createLangChainTools(invoker, { context: { tenantId } });
  const ai = await model.bindTools(tools).invoke(messages);
  for (const call of ai.tool_calls ?? []) {
    messages.push(await tools.find((t) => t.name === call.name)!.invoke(call)); // a ToolMessage
  }
  //#endregion
}

export async function interrupts() {
  //#region createLangChainTools
  // In a graph with a checkpointer: a question stops it, Command({ resume }) answers it.
  const state = await graph.invoke({ messages }, config);
  if (isInterrupted<ToolInterrupt>(state)) {
    const question = state[INTERRUPT][0].value!; // { type: 'toolwright/question', kind: 'confirm', … }
    const action = (await promptYesNo(question.message)) ? 'accept' : 'decline';
    await graph.invoke(new Command({ resume: { action } }), config);
  }
  //#endregion
}

export function interruptValue() {
  //#region ToolInterrupt
  if (isInterrupted<ToolInterrupt>(state)) state[INTERRUPT][0].value;
  // { type: 'toolwright/question', kind: 'confirm', tool: 'tickets_close', toolCallId: 'call_1', message: 'Close ticket T-1?' }
  //#endregion
}

export function questions() {
  //#region isToolInterrupt
  const questions = isInterrupted(state)
    ? state[INTERRUPT].map((i) => i.value).filter(isToolInterrupt)
    : [];
  //#endregion
  return questions;
}
