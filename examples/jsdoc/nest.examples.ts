/**
 * The `@example` blocks of the Nest layer (`toolwright`): the module's options, the decorators
 * of tool classes, the injectable services, the MCP endpoint and the command line's options
 * (`ToolsModule`'s own is in app.module.ts, the request's context in request.examples.ts).
 * Each `//#region <key>` is the example of the declaration it names, copied into its JSDoc by
 * `node scripts/sync-jsdoc-examples.mjs --write`; what an example uses without declaring it is
 * stubbed here.
 */
import {
  Catch,
  Controller,
  Inject,
  Injectable,
  NotFoundException,
  UseGuards,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { filter } from 'rxjs';
import {
  defineToolRegistry,
  mapHttpException,
  McpEndpoint,
  Prompt,
  Resource,
  ResourceTemplate,
  runToolsCli,
  serveAppStdio,
  StderrLogger,
  Tool,
  ToolError,
  ToolErrorFilter,
  ToolEvents,
  ToolExecutionContext,
  ToolFactory,
  ToolInvoker,
  ToolRequestContext,
  ToolsModule,
  type ToolsModuleFactoryOptions,
  UseToolGuards,
} from 'toolwright';
import type { ResourceCall, ToolCall, ToolContext, ToolGuard } from 'toolwright/core';
import { RedisInstanceBus } from 'toolwright/redis';
import { z } from 'zod';
import { AppModule } from './app.module.js';

declare const registry: ReturnType<typeof defineToolRegistry>;
declare const redis: Redis;
declare const argv: string[];
declare const tools: ToolInvoker;
declare const requestContext: ToolRequestContext;
declare const metrics: { increment(name?: string): void };
declare class ConfigModule {}
declare class ConfigService {
  get(key: string): string | undefined;
  getOrThrow(key: string): string;
}
declare class InvoicesService {
  find(tenantId: string, id: string): Promise<{ id: string }>;
}
declare class ArticlesService {
  handbook(): Promise<string>;
  body(tenantId: string, slug: string): Promise<string>;
  slugs(tenantId: string, prefix: string): Promise<string[]>;
}
declare class ApiKeyGuard implements CanActivate {
  canActivate(): boolean;
}
declare class AdminTools {}
declare class AdminOnlyGuard implements ToolGuard {
  canActivate(): boolean;
}
type TenantContext = { tenantId: string };
type BillingContext = { tenantId: string };

//#region ToolFactory
@ToolFactory({
  serviceName: 'billing',
  scope: 'tenant',
  context: z.object({ tenantId: z.string() }),
})
@Injectable()
export class InvoiceTools {
  constructor(private readonly invoices: InvoicesService) {}

  @Tool({
    action: 'getInvoice',
    method: 'GET',
    description: 'Fetch one invoice',
    input: z.object({ id: z.string() }),
  })
  get({ input, context }: ToolCall<{ id: string }, { tenantId: string }>) {
    return this.invoices.find(context.tenantId, input.id);
  }
}
//#endregion

@ToolFactory({
  serviceName: 'billing',
  scope: 'tenant',
  context: z.object({ tenantId: z.string() }),
})
@Injectable()
export class BillingTools {
  //#region Tool
  @Tool({
    action: 'voidInvoice',
    method: 'DELETE',
    description: 'Void an invoice',
    input: z.object({ id: z.string() }),
  })
  void({ input, context }: ToolCall<{ id: string }, BillingContext>) {
    return { voided: input.id, tenantId: context.tenantId };
  }
  //#endregion

  //#region UseToolGuards
  @UseToolGuards(AdminOnlyGuard)
  @Tool({
    action: 'purge',
    method: 'DELETE',
    description: 'Delete every invoice',
    input: z.object({}),
  })
  purge() {
    return { purged: true };
  }
  //#endregion
}

@ToolFactory({ serviceName: 'kb', context: z.object({ tenantId: z.string() }) })
@Injectable()
export class KnowledgeTools {
  constructor(private readonly articles: ArticlesService) {}

  //#region Resource
  @Resource({
    uri: 'kb://handbook',
    name: 'handbook',
    title: 'Support handbook',
    mimeType: 'text/markdown',
  })
  handbook() {
    return this.articles.handbook();
  }
  //#endregion

  //#region ResourceTemplate
  @ResourceTemplate({
    uriTemplate: 'kb://articles/{slug}',
    name: 'kb-article',
    mimeType: 'text/markdown',
    variables: z.object({ slug: z.string() }),
    complete: { slug: 'slugs' }, // a method of this class
  })
  article({ input, context }: ResourceCall<{ slug: string }, TenantContext>) {
    return this.articles.body(context.tenantId, input.slug);
  }

  slugs(value: string, { context }: { context: ToolContext }) {
    return this.articles.slugs(context.tenantId as string, value);
  }
  //#endregion

  //#region Prompt
  @Prompt({
    name: 'triage_ticket',
    description: 'Triage a ticket',
    args: z.object({ id: z.string() }),
  })
  triage({ input }: ToolCall<{ id: string }>) {
    return `Triage ticket ${input.id}.`;
  }
  //#endregion
}

export function modules() {
  //#region ToolsModule.forRoot
  ToolsModule.forRoot(registry);
  ToolsModule.forRoot({
    registry,
    context: (req) => ({ tenantId: req.headers['x-tenant-id'] }),
    logCalls: true,
  });
  //#endregion
  //#region ToolsModule.forRootAsync
  ToolsModule.forRootAsync({
    registry,
    mcp: { path: '/mcp' },
    imports: [ConfigModule],
    inject: [ConfigService],
    useFactory: (config: ConfigService) => ({
      logCalls: config.get('LOG_TOOL_CALLS') === 'true',
      mcp: { requestState: { key: config.getOrThrow('MCP_STATE_KEY') } },
    }),
  });
  //#endregion
  //#region ToolsModuleFactoryOptions
  @Injectable()
  class ToolsOptionsFactory {
    constructor(@Inject(ConfigService) private readonly config: ConfigService) {}

    createToolsOptions(): ToolsModuleFactoryOptions {
      return { mcp: { requestState: { key: this.config.getOrThrow('MCP_STATE_KEY') } } };
    }
  }
  ToolsModule.forRootAsync({ registry, useClass: ToolsOptionsFactory });
  //#endregion
  //#region ToolsModuleOptions.telemetry
  ToolsModule.forRoot({ registry, telemetry: { recordArguments: true } });
  //#endregion
  //#region ToolsModuleOptions.lintAnnotations
  ToolsModule.forRoot({ registry, lintAnnotations: true });
  //#endregion
  //#region McpOptions
  ToolsModule.forRoot({
    registry,
    mcp: { path: '/mcp', serverInfo: { name: 'billing', version: '1.0.0' } },
  });
  //#endregion
  //#region McpOptions.busRequired
  ToolsModule.forRoot({
    registry,
    mcp: { bus: new RedisInstanceBus({ redis }), busRequired: true },
  });
  //#endregion
  //#region McpOptions.endpoints
  ToolsModule.forRoot({
    registry,
    mcp: {
      select: { exclude: ['admin_reindex'] },
      endpoints: [
        {
          path: '/admin/mcp',
          select: { classes: [AdminTools] },
          serverInfo: { name: 'admin', version: '1.0.0' },
        },
      ],
    },
  });
  //#endregion
  //#region IdentifyCaller
  ToolsModule.forRoot({
    registry,
    mcp: { identify: (request) => (request as { user?: { id: string } }).user?.id },
  });
  //#endregion
}

//#region toolwright!ToolInvoker
@Injectable()
export class TriageService {
  constructor(private readonly tools: ToolInvoker) {}

  summary(id: string) {
    return this.tools.invokeOrThrow('helpdesk_get_ticket', { id }, { transport: 'AGENT' });
  }
}
//#endregion

@Injectable()
export class FailureMetrics {
  //#region ToolEvents
  constructor(events: ToolEvents) {
    events.events$.pipe(filter((e) => !e.ok)).subscribe((e) => metrics.increment(e.errorCode));
  }
  //#endregion
}

//#region ToolExecutionContext
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const tool = ToolExecutionContext.create(context);
    if (tool) console.log(tool.name, tool.transport);
    return next.handle();
  }
}
//#endregion

//#region ToolErrorFilter
@Catch(ToolError)
export class ProblemJsonFilter extends ToolErrorFilter {
  override catch(error: ToolError, host: ArgumentsHost) {
    host
      .switchToHttp()
      .getResponse()
      .status(error.status)
      .send({ type: error.code, title: error.message });
  }
}
//#endregion

export function errors() {
  //#region mapHttpException
  mapHttpException(new NotFoundException('No such invoice')); // ToolError NOT_FOUND "No such invoice"
  //#endregion
}

export async function requests() {
  //#region ToolRequestContext
  // In a worker or a test: make a request-like object current for the calls inside.
  await requestContext.run({ headers: { 'x-tenant-id': 'acme' } }, () =>
    tools.invoke('billing_get_invoice', { id: 'inv_1' }, { transport: 'AGENT' }),
  );
  //#endregion
}

//#region McpEndpoint
@Controller({ path: 'agents/mcp', version: '2' })
@UseGuards(ApiKeyGuard)
export class AgentMcpController extends McpEndpoint {}
//#endregion

export async function stdio() {
  //#region serveAppStdio
  const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrLogger() });
  serveAppStdio(app, { context: { tenantId: 'local' } });
  //#endregion
}

export async function logger() {
  //#region StderrLogger
  const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrLogger() });
  //#endregion
  return app;
}

export async function cli() {
  //#region ToolsCliOptions
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  await runToolsCli(AppModule, process.argv.slice(2), { name: 'tools', signal: controller.signal });
  //#endregion
  //#region ToolsCliOptions.ask
  await runToolsCli(AppModule, argv, {
    ask: async (question) => ({ action: question.kind === 'confirm' ? 'accept' : 'decline' }),
  });
  //#endregion
}
