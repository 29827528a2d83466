import { Module } from '@nestjs/common';
import { KnowledgeTools } from './knowledge.tools.js';
import { TicketTools } from './ticket.tools.js';
import { TicketsService } from './tickets.service.js';

/**
 * The help desk feature, reusable by any application: it provides its tool classes and exports
 * them as registry defaults, which the application composes (and may replace or disable).
 */
export const HELPDESK_TOOLS = [TicketTools, KnowledgeTools] as const;

@Module({
  providers: [TicketsService, ...HELPDESK_TOOLS],
  exports: [TicketsService],
})
export class HelpdeskModule {}
