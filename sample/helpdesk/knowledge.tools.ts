import { Inject, Injectable } from '@nestjs/common';
import {
  ResourceTemplate,
  Tool,
  ToolError,
  ToolFactory,
  type ResourceCall,
  type ToolCall,
} from 'toolwright';
import { z } from 'zod';
import { Article, TenantContext } from './helpdesk.schemas.js';
import { TICKETS_READ } from './helpdesk.scopes.js';
import { TicketsService } from './tickets.service.js';

/** The slug of an article in its URI: its title in lower case, words joined by "-". */
export function articleSlug(article: Pick<Article, 'title'>): string {
  return article.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The knowledge base of the help desk feature: a plain substring search, and each article of the
 * tenant as a resource (`kb://articles/{slug}`), its slug completed from the tenant's articles.
 */
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

  @ResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb_article',
    title: 'Knowledge base article',
    description: 'An article of the tenant’s knowledge base, in Markdown.',
    mimeType: 'text/markdown',
    variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
    complete: { slug: 'articleSlugs' },
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  article({ input, context }: ResourceCall<{ slug: string }, TenantContext>) {
    const article = this.tickets
      .articles(context.tenantId)
      .find((candidate) => articleSlug(candidate) === input.slug);
    if (!article) {
      throw new ToolError('NOT_FOUND', { message: `No article "${input.slug}".` });
    }
    return `# ${article.title}\n\n${article.body}\n\nTags: ${article.tags.join(', ')}\n`;
  }

  /** The slugs of the caller's articles that start with what the user typed. */
  articleSlugs(value: string, { context }: { context: Partial<TenantContext> }) {
    if (typeof context.tenantId !== 'string') return [];
    return this.tickets
      .articles(context.tenantId)
      .map(articleSlug)
      .filter((slug) => slug.startsWith(value));
  }
}
