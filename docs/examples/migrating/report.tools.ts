import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { ShopContext } from './order.tools.js';
import { OrdersService } from './orders.service.js';

@ToolFactory({ serviceName: 'reports', context: ShopContext })
@Injectable()
export class ReportTools {
  constructor(@Inject(OrdersService) private readonly orders: OrdersService) {}

  @Tool({
    name: 'export-orders',
    action: 'exportOrders',
    method: 'POST',
    description: 'Export the orders of the current tenant as CSV, page by page.',
    input: z.object({ pageSize: z.number().int().min(1).max(100).default(50) }),
    output: z.object({ csv: z.string(), rows: z.number() }),
    timeoutMs: 30_000,
  })
  async exportOrders({
    input,
    context,
    reportProgress,
    log,
    signal,
  }: ToolCall<{ pageSize: number }, ShopContext>) {
    const orders = this.orders.list(context.tenantId);
    if (orders.length === 0) log.warn('No orders to export.');
    const pages = Math.max(1, Math.ceil(orders.length / input.pageSize));
    const lines = ['id,total,status'];
    for (let page = 0; page < pages; page++) {
      await sleep(50, undefined, { signal }); // a slow query; it stops when the call is cancelled
      for (const order of orders.slice(page * input.pageSize, (page + 1) * input.pageSize)) {
        lines.push(`${order.id},${order.total},${order.status}`);
      }
      // Was `await ctx.reportProgress(...)`: it reaches clients of both eras, with no session.
      reportProgress({ progress: page + 1, total: pages, message: `page ${page + 1}` });
    }
    return { csv: lines.join('\n'), rows: orders.length };
  }
}
