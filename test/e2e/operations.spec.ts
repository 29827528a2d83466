/**
 * `@Resource`, `@ResourceTemplate` and `@Prompt` on a `@ToolFactory` class: methods with
 * injected services and the class's context schema, a Nest guard from `@UseGuards`, read and got
 * in-process through `ToolInvoker` and over MCP on both adapters, and composed by the registry
 * like tools.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import {
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  ToolFactory,
  ToolExecutionContext,
  ToolInvoker,
  ToolsModule,
  createToolInvoker,
  defineToolRegistry,
  type ResourceCall,
  type ToolCall,
} from '../../lib/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { ADAPTERS, TestApps } from '../fixtures/apps.js';

const Tenant = z.object({ tenantId: z.string() });
type Tenant = z.infer<typeof Tenant>;

@Injectable()
class ArticlesService {
  private readonly byTenant: Record<string, Record<string, string>> = {
    acme: { 'reset-password': 'Reset it from the login page.', 'vpn-setup': 'Install the client.' },
    globex: { billing: 'Invoices go out monthly.' },
  };
  slugs(tenantId: string): string[] {
    return Object.keys(this.byTenant[tenantId] ?? {});
  }
  body(tenantId: string, slug: string): string | undefined {
    return this.byTenant[tenantId]?.[slug];
  }
}

/** A Nest guard: only the acme tenant may read the handbook. */
@Injectable()
class AcmeOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const call = ToolExecutionContext.create(context);
    return call?.call.kind === 'resource' && (call.context as Tenant).tenantId === 'acme';
  }
}

@ToolFactory({ serviceName: 'kb', context: Tenant })
@Injectable()
class KnowledgeBase {
  constructor(private readonly articles: ArticlesService) {}

  @Tool({ action: 'count', method: 'GET', description: 'Count articles', input: z.object({}) })
  count({ context }: ToolCall<object, Tenant>) {
    return { count: this.articles.slugs(context.tenantId).length };
  }

  @Resource({ uri: 'kb://handbook', name: 'handbook', mimeType: 'text/markdown' })
  @UseGuards(AcmeOnly)
  handbook() {
    return '# Acme handbook';
  }

  @ResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb-article',
    description: 'A knowledge-base article of the tenant',
    mimeType: 'text/plain',
    variables: z.object({ slug: z.string() }),
    complete: { slug: 'slugs' },
  })
  article({ input, context, uri }: ResourceCall<{ slug: string }, Tenant>) {
    const body = this.articles.body(context.tenantId, input.slug);
    return body === undefined ? [] : { uri, text: body };
  }

  /** The completer of `kb-article`'s slug: a method, with the injected service. */
  slugs(value: string, { context }: { context: Record<string, unknown> }) {
    return this.articles.slugs(String(context.tenantId)).filter((slug) => slug.startsWith(value));
  }

  @Prompt({
    name: 'summarise_article',
    description: 'Summarise an article',
    args: z.object({ slug: z.string() }),
  })
  summarise({ input, context }: ToolCall<{ slug: string }, Tenant>) {
    return `Summarise for ${context.tenantId}: ${this.articles.body(context.tenantId, input.slug)}`;
  }
}

@Module({ providers: [ArticlesService, KnowledgeBase, AcmeOnly], exports: [KnowledgeBase] })
class KnowledgeModule {}

const apps = new TestApps();
afterEach(() => apps.closeAll());

const module = (registry: unknown = [KnowledgeBase]) => ({
  imports: [
    KnowledgeModule,
    ToolsModule.forRoot({
      registry: registry as never,
      context: (request: { headers: Record<string, string | undefined> }) => ({
        tenantId: request.headers['x-tenant'] ?? 'acme',
      }),
    }),
  ],
});

it('reads and gets in-process through ToolInvoker, with DI, the context schema and the Nest guard', async () => {
  const app = await apps.init(module());
  const tools = app.get(ToolInvoker);
  expect(tools.names('MCP')).toEqual(['kb_count']);
  expect(tools.operations('MCP', 'resource').map((d) => d.name)).toEqual([
    'handbook',
    'kb-article',
  ]);

  const acme = { transport: 'AGENT', context: { tenantId: 'acme' } } as const;
  await expect(tools.readResource('kb://articles/vpn-setup', acme)).resolves.toEqual({
    ok: true,
    data: {
      contents: [
        { uri: 'kb://articles/vpn-setup', mimeType: 'text/plain', text: 'Install the client.' },
      ],
    },
  });
  await expect(tools.readResource('kb://handbook', acme)).resolves.toMatchObject({ ok: true });
  await expect(
    tools.readResource('kb://handbook', { transport: 'AGENT', context: { tenantId: 'globex' } }),
  ).resolves.toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  await expect(tools.getPrompt('summarise_article', { slug: 'vpn-setup' }, acme)).resolves.toEqual({
    ok: true,
    data: {
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: 'Summarise for acme: Install the client.' },
        },
      ],
    },
  });
  await expect(
    tools.complete(
      'kb-article',
      { name: 'slug', value: 'v' },
      { transport: 'MCP', context: { tenantId: 'acme' } },
    ),
  ).resolves.toEqual(['vpn-setup']);
});

it('a completer named after a method the class lacks is a bootstrap error', async () => {
  @ToolFactory({ serviceName: 'broken' })
  @Injectable()
  class Broken {
    @Prompt({ name: 'broken_prompt', args: z.object({ id: z.string() }), complete: { id: 'ids' } })
    prompt() {
      return 'x';
    }
  }
  await expect(
    apps.init({ imports: [ToolsModule.forRoot({ registry: [Broken] })], providers: [Broken] }),
  ).rejects.toThrow(
    CORE_MESSAGES.completerNotMethod('broken_prompt', 'Broken.prompt', 'id', 'ids', 'Broken'),
  );
});

it('the registry disables and replaces a resource or prompt by name like a tool', async () => {
  const registry = defineToolRegistry({ defaults: [KnowledgeBase] }).disable('summarise_article');
  const app = await apps.init(module(registry));
  const tools = app.get(ToolInvoker);
  expect(tools.operations('MCP', 'prompt')).toEqual([]);
  await expect(
    tools.getPrompt('summarise_article', { slug: 'x' }, { transport: 'MCP', source: 'mcp' }),
  ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(() =>
    defineToolRegistry({ defaults: [KnowledgeBase] }).disable('summarize_article'),
  ).toThrow(CORE_MESSAGES.undeclaredDefault('disable', 'summarize_article', registry.declared));
});

describe.each(ADAPTERS)('over MCP on %s', (adapter) => {
  it('lists, reads and gets with the tenant of the request', async () => {
    const { url } = await apps.listen(module(), adapter);
    const client = new Client(
      { name: 'kb', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { 'x-tenant': 'globex' } },
      }),
    );
    try {
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
        expect.objectContaining({ uriTemplate: 'kb://articles/{slug}', name: 'kb-article' }),
      ]);
      expect((await client.readResource({ uri: 'kb://articles/billing' })).contents).toEqual([
        { uri: 'kb://articles/billing', mimeType: 'text/plain', text: 'Invoices go out monthly.' },
      ]);
      await expect(client.readResource({ uri: 'kb://handbook' })).rejects.toMatchObject({
        code: -32603,
      });
      const completion = await client.complete({
        ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
        argument: { name: 'slug', value: '' },
      });
      expect(completion.completion.values).toEqual(['billing']);
      const prompt = await client.getPrompt({
        name: 'summarise_article',
        arguments: { slug: 'billing' },
      });
      expect(prompt.messages[0].content).toEqual({
        type: 'text',
        text: 'Summarise for globex: Invoices go out monthly.',
      });
    } finally {
      await client.close();
    }
  });
});

it('names a resource, template or prompt after its method when its options leave `name` out', async () => {
  @ToolFactory({ serviceName: 'docs' })
  class Docs {
    @Resource({ uri: 'docs://readme' })
    readme() {
      return '# Docs';
    }

    @ResourceTemplate({
      uriTemplate: 'docs://pages/{page}',
      variables: z.object({ page: z.string() }),
    })
    page({ input }: ResourceCall<{ page: string }>) {
      return `page ${input.page}`;
    }

    @Prompt({ args: z.object({ topic: z.string() }) })
    explain({ input }: ToolCall<{ topic: string }>) {
      return `Explain ${input.topic}.`;
    }
  }
  const invoker = createToolInvoker([Docs]);
  const names = (kind: 'resource' | 'prompt') =>
    invoker.operations('MCP', kind).map((operation) => operation.name);
  expect(names('resource')).toEqual(['readme', 'page']);
  expect(names('prompt')).toEqual(['explain']);
  await expect(
    invoker.getPrompt('explain', { topic: 'tools' }, { transport: 'MCP' }),
  ).resolves.toMatchObject({ ok: true });
});
