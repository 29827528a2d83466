import { Inject, Injectable } from '@nestjs/common';
import {
  Resource,
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

/** The URI of an article as a resource: `kb://articles/<slug>`. */
export function articleUri(article: Pick<Article, 'title'>): string {
  return `kb://articles/${articleSlug(article)}`;
}

/**
 * The knowledge base of the help desk feature: a plain substring search, an index of the tenant's
 * articles (`kb://articles`, listed by `resources/list`), and each article as a resource
 * (`kb://articles/{slug}`), its slug completed from the tenant's articles.
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

  @Resource({
    uri: 'kb://articles',
    name: 'kb_index',
    title: 'Knowledge base index',
    description: 'The tenant’s articles, each with the URI that reads it, in Markdown.',
    mimeType: 'text/markdown',
    transports: ['MCP', 'AGENT', 'CLI'],
  })
  index({ context }: ResourceCall<Record<string, never>, TenantContext>) {
    const lines = this.tickets
      .articles(context.tenantId)
      .map((article) => `- [${article.title}](${articleUri(article)})`);
    return `# Knowledge base\n\n${lines.length > 0 ? lines.join('\n') : 'No articles yet.'}\n`;
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
