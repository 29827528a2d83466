import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage } from '@langchain/core/messages';
import {
  Command,
  INTERRUPT,
  isInterrupted,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { createToolInvoker, defineRuntimeTool } from 'toolwright';
import { createLangChainTools, type ToolAnswer, type ToolInterrupt } from 'toolwright/langchain';
import { z } from 'zod';

const closeTicket = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'tickets', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) =>
    (await confirm(`Close ticket ${input.id}?`)) ? { closed: input.id } : { closed: null },
});

/** The tool's `confirm` interrupts the graph; the answer resumes it, and `confirm` returns it. */
export async function chat(
  model: BaseChatModel,
  text: string,
  answer: (question: ToolInterrupt) => Promise<ToolAnswer>,
) {
  const tools = createLangChainTools(createToolInvoker([closeTicket]));
  const agent = model.bindTools!(tools);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async ({ messages }) => ({ messages: [await agent.invoke(messages)] }))
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile({ checkpointer: new MemorySaver() });

  const config = { configurable: { thread_id: 'chat-1' } }; // a checkpointer needs a thread
  let state = await graph.invoke({ messages: [new HumanMessage(text)] }, config);
  while (isInterrupted<ToolInterrupt>(state)) {
    // { type: 'toolwright/question', kind: 'confirm', tool: 'tickets_close', message: 'Close ticket T-1?', … }
    const question = state[INTERRUPT][0].value!;
    state = await graph.invoke(new Command({ resume: await answer(question) }), config);
  }
  return state.messages.at(-1)?.content;
}
