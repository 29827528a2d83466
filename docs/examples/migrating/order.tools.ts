import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolError, ToolFactory, UseToolGuards, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { ManagersOnly } from './managers-only.guard.js';
import { OrdersService } from './orders.service.js';

/**
 * What the 2.x handlers read from `@McpRawRequest()`: resolved once per call by the module's
 * context resolver, and parsed here, before any guard or handler runs.
 */
export const ShopContext = z.object({
  tenantId: z.string().min(1),
  role: z.enum(['clerk', 'manager']).default('clerk'),
});
export type ShopContext = z.infer<typeof ShopContext>;

const Order = z.object({
  id: z.string(),
  total: z.number(),
  status: z.enum(['paid', 'refunded']),
});

/** Was an `@McpController()` in a module's `controllers`: now a provider with a tool identity. */
@ToolFactory({ serviceName: 'orders', context: ShopContext })
@Injectable()
export class OrderTools {
  constructor(@Inject(OrdersService) private readonly orders: OrdersService) {}

  @Tool({
    name: 'list-orders', // the 2.x name, kept for the clients and prompts that know it
    action: 'list',
    method: 'GET',
    description: 'List the orders of the current tenant.',
    input: z.object({}), // was `parameters`
    output: z.object({ orders: z.array(Order) }), // was `outputSchema`
  })
  list({ context }: ToolCall<Record<string, never>, ShopContext>) {
    return { orders: this.orders.list(context.tenantId) };
  }

  @Tool({
    name: 'get-order',
    action: 'get',
    method: 'GET',
    description: 'Fetch one order by id.',
    input: z.object({ id: z.string().describe('An order id such as o-1') }),
    output: Order,
  })
  get({ input, context }: ToolCall<{ id: string }, ShopContext>) {
    const order = this.orders.find(context.tenantId, input.id);
    if (!order) {
      // Was `throw new RpcException(...)`, which toolwright would answer as an internal error.
      throw new ToolError('NOT_FOUND', {
        message: `No order ${input.id}.`,
        hint: 'Call list-orders to see the order ids.',
      });
    }
    return order; // was `{ content: [{ type: 'text', text: JSON.stringify(order) }] }`
  }

  @UseToolGuards(ManagersOnly) // was `@UseGuards(ManagerGuard)`; `canList` hides it from clerks
  @Tool({
    name: 'refund-order',
    action: 'refund',
    method: 'POST',
    description: 'Refund a paid order. Managers only.',
    input: z.object({ id: z.string() }),
    output: Order,
  })
  refund({ input, context, log }: ToolCall<{ id: string }, ShopContext>) {
    const order = this.orders.refund(context.tenantId, input.id);
    if (!order) throw new ToolError('NOT_FOUND', { message: `No order ${input.id}.` });
    log.warn(`Order ${order.id} refunded.`); // `log.warn` as in 2.x (or `log.warning`)
    return order;
  }
}
