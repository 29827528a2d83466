import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { Article, TenantContext } from './helpdesk.schemas.js';
import { TICKETS_READ } from './helpdesk.scopes.js';
import { TicketsService } from './tickets.service.js';

/** The knowledge base search of the help desk feature: a plain substring match. */
@ToolFactory({
  serviceName: 'helpdesk',
  scope: 'tenant',
  context: TenantContext,
  scopes: [TICKETS_READ],
})
@Injectable()
export class KnowledgeTools {
  constructor(@Inject(TicketsService) private readonly tickets: TicketsService) {}

  @Tool({
    action: 'searchArticles',
    method: 'GET',
    description:
      'Find knowledge base articles of the tenant whose title or body contains the query.',
    input: z.object({
      query: z.string().min(1),
      limit: z.number().int().min(1).max(20).default(5),
    }),
    output: z.object({ articles: z.array(Article) }),
  })
  search({ input, context }: ToolCall<{ query: string; limit: number }, TenantContext>) {
    const needle = input.query.toLowerCase();
    const articles = this.tickets
      .articles(context.tenantId)
      .filter((a) => `${a.title} ${a.body}`.toLowerCase().includes(needle))
      .slice(0, input.limit);
    return { articles };
  }
}
