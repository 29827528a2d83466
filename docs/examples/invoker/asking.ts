import { defineRuntimeTool, type ToolInvoker } from 'toolwright';
import { z } from 'zod';

const Priority = z.object({ priority: z.enum(['low', 'normal', 'high']) });

export const closeTicket = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'tickets', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true, elicit: [Priority] },
  handler: async ({ input, confirm, elicit }) => {
    if (!(await confirm(`Close ticket ${input.id}?`))) return { closed: false };
    const answer = await elicit({ message: 'Priority of the follow-up?', schema: Priority });
    return { closed: true, followUp: answer.action === 'accept' ? answer.content.priority : null };
  },
});

/** In-process, the caller answers: here from a terminal prompt of the application's own. */
export function closeFromConsole(
  tools: ToolInvoker,
  prompt: (question: string) => Promise<string>,
) {
  return tools.invoke(
    'tickets_close',
    { id: 'T-1001' },
    {
      transport: 'AGENT',
      ask: async (question) => {
        if (question.kind === 'confirm') {
          return {
            action: (await prompt(`${question.message} [y/N] `)) === 'y' ? 'accept' : 'decline',
          };
        }
        const priority = await prompt(`${question.message} (low/normal/high) `);
        return { action: 'accept', content: { priority } };
      },
    },
  );
}
