import { Inject, Injectable } from '@nestjs/common';
import {
  Prompt,
  Resource,
  ResourceTemplate,
  ToolError,
  ToolFactory,
  type ResourceCall,
  type ToolCall,
} from 'toolwright';
import { z } from 'zod';
import { Articles } from './articles.js';

const Tenant = z.object({ tenantId: z.string() });
type Tenant = z.infer<typeof Tenant>;

@ToolFactory({ serviceName: 'kb', context: Tenant })
@Injectable()
export class KnowledgeBase {
  constructor(@Inject(Articles) private readonly articles: Articles) {}

  @Resource({
    uri: 'kb://handbook',
    name: 'handbook',
    title: 'Support handbook',
    mimeType: 'text/markdown',
  })
  handbook() {
    return '# Support handbook\n\nAnswer within a day.';
  }

  @ResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb_article',
    title: 'Knowledge base article',
    mimeType: 'text/markdown',
    variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
    complete: { slug: 'slugs' },
  })
  article({ input, context }: ResourceCall<{ slug: string }, Tenant>) {
    const body = this.articles.body(context.tenantId, input.slug);
    if (body === undefined)
      throw new ToolError('NOT_FOUND', { message: `No article ${input.slug}.` });
    return body;
  }

  /** Suggests the caller's slugs: a method, so it can use the injected service. */
  slugs(value: string, { context }: { context: Record<string, unknown> }) {
    return this.articles.slugs(String(context.tenantId)).filter((slug) => slug.startsWith(value));
  }

  @Prompt({
    name: 'summarise_article',
    title: 'Summarise an article',
    description: 'Summarise a knowledge base article for a customer',
    args: z.object({
      slug: z.string().describe('The article'),
      tone: z.enum(['formal', 'casual']).optional(),
    }),
    complete: { slug: 'slugs' },
  })
  summarise({ input, context }: ToolCall<{ slug: string; tone?: string }, Tenant>) {
    const body = this.articles.body(context.tenantId, input.slug) ?? '';
    return {
      description: `Summary of ${input.slug}`,
      messages: [
        {
          role: 'user' as const,
          content: {
            type: 'resource',
            resource: { uri: `kb://articles/${input.slug}`, mimeType: 'text/markdown', text: body },
          },
        },
        {
          role: 'user' as const,
          content: {
            type: 'text',
            text: `Summarise the article above, ${input.tone ?? 'formal'} tone.`,
          },
        },
      ],
    };
  }
}
