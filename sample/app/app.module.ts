import { Module, type DynamicModule } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { CallerContextResolver } from '../auth/caller-context.resolver.js';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { DatabaseModule } from '../database/database.module.js';
import { HELPDESK_TOOLS, HelpdeskModule } from '../helpdesk/helpdesk.module.js';
import { McpController } from './mcp.controller.js';
import { RankedSearchTools } from './ranked-search.tools.js';
import { SessionTools } from './session.tools.js';
import { TicketsController } from './tickets.controller.js';

/**
 * The application's tool surface: the help desk feature's defaults, with its search replaced by
 * the application's own and ticket deletion disabled, plus a request-scoped session tool.
 */
export const registry = defineToolRegistry({ defaults: [...HELPDESK_TOOLS, SessionTools] })
  .replace('helpdesk_search_articles', RankedSearchTools)
  .disable('helpdesk_delete_ticket');

/** Options of the sample application. */
export interface HelpdeskAppOptions {
  /** The SQLite file; created and seeded when missing. */
  databaseFile: string;
  /** Log one line per tool call. */
  logCalls?: boolean;
}

@Module({})
export class AppModule {
  static forRoot(options: HelpdeskAppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(options.databaseFile),
        HelpdeskModule,
        ToolsModule.forRoot({
          registry,
          context: CallerContextResolver,
          logCalls: options.logCalls ?? false,
          // The application mounts the endpoint itself (McpController) to guard it.
          mcp: { mount: false, serverInfo: { name: 'helpdesk-sample', version: '1.0.0' } },
        }),
      ],
      controllers: [McpController, TicketsController],
      providers: [ApiKeyGuard, CallerContextResolver, RankedSearchTools, SessionTools],
    };
  }
}
