import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { TenantContext } from '../helpdesk/helpdesk.schemas.js';
import { TicketsService } from '../helpdesk/tickets.service.js';

/** The tools only the admin MCP server serves (`/admin/mcp`): nothing on `/mcp` lists them. */
@ToolFactory({ serviceName: 'admin', scope: 'tenant', context: TenantContext })
@Injectable()
export class AdminTools {
  constructor(@Inject(TicketsService) private readonly tickets: TicketsService) {}

  @Tool({
    action: 'ticketStats',
    method: 'GET',
    description: "Count the tenant's tickets by status (open, pending, closed).",
    input: z.object({}),
    output: z.object({ open: z.number(), pending: z.number(), closed: z.number() }),
    annotations: { title: 'Ticket statistics' },
  })
  ticketStats({ context }: ToolCall<object, TenantContext>) {
    const count = (status: 'open' | 'pending' | 'closed') =>
      this.tickets.list(context.tenantId, status, 10_000).length;
    return { open: count('open'), pending: count('pending'), closed: count('closed') };
  }
}

/** The names of the admin tools, which the public endpoint leaves out. */
export const ADMIN_ONLY_TOOLS = ['admin_ticket_stats'];
