import type { ToolCall } from '@langchain/core/messages/tool';
import { createToolInvoker } from 'toolwright';
import { createLangChainTools } from 'toolwright/langchain';
import { getOrder } from './support.tools.js';

/**
 * The same tools as LangChain structured tools. Invoked with a tool call, as an agent does,
 * each returns a ToolMessage; a failure is one with `status: 'error'` whose content is the
 * JSON envelope, so the agent loop goes on and the model can correct itself.
 */
export async function runToolCalls(calls: ToolCall[], tenantId: string) {
  const tools = createLangChainTools(createToolInvoker([getOrder]), { context: { tenantId } });
  return Promise.all(
    calls.map((call) => tools.find((tool) => tool.name === call.name)!.invoke(call)),
  );
}
