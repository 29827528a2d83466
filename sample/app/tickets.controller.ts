import { Body, Controller, Get, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ToolInvoker } from 'toolwright';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { Article, Ticket, TicketWithComments } from '../helpdesk/helpdesk.schemas.js';

const REST = { transport: 'AGENT', source: 'rest' } as const;

/**
 * REST routes that run the same tools in-process. The tenant and user come from the request
 * (through the context resolver), exactly as they do for MCP calls. A failed call answers its
 * `ToolError`'s status and envelope (ToolsModule's global `ToolErrorFilter`).
 */
@Controller('api/tickets')
@UseGuards(ApiKeyGuard)
export class TicketsController {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  @Get()
  list(@Query('status') status?: string) {
    return this.tools.invokeOrThrow('helpdesk_list_tickets', status ? { status } : {}, REST);
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.tools.invokeOrThrow('helpdesk_get_ticket', { id }, REST);
  }

  /** A REST caller cannot be asked: a ticket without a priority gets `normal`. */
  @Post()
  create(@Body() body: Record<string, unknown>) {
    return this.tools.invokeOrThrow(
      'helpdesk_create_ticket',
      { priority: 'normal', ...body },
      REST,
    );
  }

  /**
   * Triage: read the ticket, find related articles, and raise the priority when nothing in the
   * knowledge base covers it — three tool calls, one request.
   */
  @Post(':id/triage')
  async triage(@Param('id') id: string) {
    const ticket = await this.tools.invokeOrThrow<TicketWithComments>(
      'helpdesk_get_ticket',
      { id },
      REST,
    );
    const { articles } = await this.tools.invokeOrThrow<{
      articles: (Article & { score?: number })[];
    }>('helpdesk_search_articles', { query: `${ticket.title} ${ticket.body}`, limit: 3 }, REST);
    let updated: Ticket = ticket;
    if (articles.length === 0 && ticket.priority !== 'high') {
      updated = await this.tools.invokeOrThrow<Ticket>(
        'helpdesk_update_ticket',
        { id, priority: 'high' },
        REST,
      );
    }
    return {
      ticket: updated,
      suggestions: articles,
      escalated: updated.priority !== ticket.priority,
    };
  }
}
