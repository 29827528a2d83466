import { generateText, isStepCount, type LanguageModel, type ModelMessage } from 'ai';
import { createToolInvoker, defineRuntimeTool } from 'toolwright';
import { createAgentTools } from 'toolwright/ai';
import { z } from 'zod';

export const closeTicket = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'tickets', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true },
  handler: async ({ input, confirm }) =>
    (await confirm(`Close ticket ${input.id}?`)) ? { closed: input.id } : { closed: null },
});

/**
 * One chat turn. The model's call of `tickets_close` stops the run with a tool approval request;
 * the user's answer goes back as a `tool-approval-response`, and the next run executes the tool
 * (its `confirm` resolves true) or tells the model the user denied it.
 */
export async function chatTurn(
  model: LanguageModel,
  messages: ModelMessage[],
  approve: (toolName: string, input: unknown) => Promise<boolean>,
): Promise<string> {
  const tools = createAgentTools(createToolInvoker([closeTicket]));
  for (;;) {
    const result = await generateText({ model, tools, messages, stopWhen: isStepCount(5) });
    messages.push(...result.responseMessages);
    const requests = result.finalStep.content
      .filter((part) => part.type === 'tool-approval-request')
      .filter((request) => !request.isAutomatic);
    if (requests.length === 0) return result.text;
    const content = [];
    for (const { approvalId, toolCall } of requests) {
      const approved = await approve(toolCall.toolName, toolCall.input);
      content.push({ type: 'tool-approval-response' as const, approvalId, approved });
    }
    messages.push({ role: 'tool', content });
  }
}
