import { z } from 'zod';
import { createRuntimeToolFactory, ToolError } from 'toolwright';

const support = createRuntimeToolFactory({
  serviceName: 'support',
  context: z.object({ tenantId: z.string() }),
});

/** Looks up an order of the caller's tenant; exposed to agents and to the command line. */
export const getOrder = support.define({
  action: 'getOrder',
  method: 'GET',
  description: 'Read one order by id',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), tenantId: z.string(), status: z.string() }),
  transports: ['MCP', 'AGENT', 'CLI'],
  present: { agent: (order) => `Order ${order.id} is ${order.status}.` },
  handler: ({ input, context }) => {
    if (input.id !== 'o-1') throw new ToolError('NOT_FOUND', { message: `No order ${input.id}` });
    return { id: input.id, tenantId: context.tenantId, status: 'shipped' };
  },
});
