import { generateText, isStepCount, type LanguageModel } from 'ai';
import { createToolInvoker } from 'toolwright';
import { createAgentTools } from 'toolwright/ai';
import { getOrder } from './support.tools.js';

/**
 * The same tools in an AI SDK agent loop. Each tool call runs through the runner with
 * `transport: 'AGENT'`, `source: 'agent'` and the SDK's `toolCallId` in its context; a failure
 * reaches the model as the JSON envelope `{ error, message, retryable, details?, hint? }`.
 */
export async function answer(model: LanguageModel, question: string, tenantId: string) {
  const invoker = createToolInvoker([getOrder]);
  const { text } = await generateText({
    model,
    tools: createAgentTools(invoker, { context: { tenantId } }),
    stopWhen: isStepCount(5),
    prompt: question,
  });
  return text;
}
