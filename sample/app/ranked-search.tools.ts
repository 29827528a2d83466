import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';
import { Article, TenantContext } from '../helpdesk/helpdesk.schemas.js';
import { TICKETS_READ } from '../helpdesk/helpdesk.scopes.js';
import { TicketsService } from '../helpdesk/tickets.service.js';

const STOP_WORDS = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'that',
  'this',
  'not',
  'are',
  'was',
]);

/**
 * The application's own `helpdesk_search_articles`: it replaces the feature's substring search
 * with a ranking by shared words and tags. Same name, same contract — callers do not notice.
 */
@ToolFactory({
  serviceName: 'helpdesk',
  scope: 'tenant',
  context: TenantContext,
  scopes: [TICKETS_READ],
})
@Injectable()
export class RankedSearchTools {
  constructor(@Inject(TicketsService) private readonly tickets: TicketsService) {}

  @Tool({
    action: 'searchArticles',
    method: 'GET',
    description:
      'Find the knowledge base articles most related to a query or a ticket text, best first.',
    input: z.object({
      query: z.string().min(1),
      limit: z.number().int().min(1).max(20).default(5),
    }),
    output: z.object({ articles: z.array(Article.extend({ score: z.number() })) }),
  })
  search({ input, context }: ToolCall<{ query: string; limit: number }, TenantContext>) {
    const words = new Set(
      (input.query.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).filter((w) => !STOP_WORDS.has(w)),
    );
    const articles = this.tickets
      .articles(context.tenantId)
      .map((article) => {
        const text = `${article.title} ${article.body} ${article.tags.join(' ')}`.toLowerCase();
        const score = [...words].filter((w) => text.includes(w)).length;
        return { ...article, score };
      })
      .filter((a) => a.score > 0)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, input.limit);
    return { articles };
  }
}
