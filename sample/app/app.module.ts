import {
  Inject,
  Injectable,
  Logger,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Redis } from 'ioredis';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { RedisInstanceBus, RedisTaskStore } from 'toolwright/redis';
import { CallerContextResolver } from '../auth/caller-context.resolver.js';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { DatabaseModule } from '../database/database.module.js';
import { HELPDESK_TOOLS, HelpdeskModule } from '../helpdesk/helpdesk.module.js';
import { HELPDESK_SCOPES } from '../helpdesk/helpdesk.scopes.js';
import { AdminGuard, AdminMcpController } from './admin-mcp.controller.js';
import { HealthModule } from './health.module.js';
import { ADMIN_ONLY_TOOLS, AdminTools } from './admin.tools.js';
import { McpController } from './mcp.controller.js';
import { RankedSearchTools } from './ranked-search.tools.js';
import { SessionTools } from './session.tools.js';
import { TicketsController } from './tickets.controller.js';

/**
 * The application's tool surface: the help desk feature's defaults, with its search replaced by
 * the application's own and ticket deletion disabled, plus a request-scoped session tool and the
 * admin tools (served on the admin MCP server only).
 */
export const registry = defineToolRegistry({
  defaults: [...HELPDESK_TOOLS, SessionTools, AdminTools],
})
  .replace('helpdesk_search_articles', RankedSearchTools)
  .disable('helpdesk_delete_ticket');

/** Options of the sample application. */
export interface HelpdeskAppOptions {
  /** The SQLite file; created and seeded when missing. */
  databaseFile: string;
  /** Log one line per tool call. */
  logCalls?: boolean;
  /**
   * Sign MCP clients in with OAuth access tokens instead of API keys (`npm run sample:oauth`):
   * tokens of `issuer`, issued for `resource`, the MCP endpoint's URL as clients reach it. The
   * REST routes keep their API keys.
   */
  oauth?: { issuer: string; resource: string };
  /**
   * The key that seals the state of a question to a 2026-era MCP client (32 bytes or more), the
   * same on every instance. Without it, each process makes its own (and says so at bootstrap).
   */
  requestStateKey?: string;
  /**
   * A Redis that every instance shares (`npm run sample:cluster`): the export's tasks live there,
   * and what a 2025-era client sends one instance about a call another runs crosses over it.
   */
  redisUrl?: string;
}

const SAMPLE_REDIS = Symbol('SAMPLE_REDIS');
const redisLogger = new Logger('Redis');

/** Closes the sample's Redis connection when the application shuts down. */
@Injectable()
class RedisConnection implements OnApplicationShutdown {
  constructor(@Inject(SAMPLE_REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const serverInfo = { name: 'helpdesk-sample', version: '1.0.0' };

/**
 * The second MCP server of the sample, at `/admin/mcp`: the admin tools, plus two help desk tools
 * that are on `/mcp` too. Mounted by `AdminMcpController`, behind the API key and admin guards.
 */
const adminEndpoint = {
  path: '/admin/mcp',
  mount: false,
  select: {
    classes: [AdminTools],
    include: ['helpdesk_export_tickets', 'helpdesk_assign_ticket'],
  },
  serverInfo: { name: 'helpdesk-admin', version: '1.0.0' },
  instructions: 'Administration of the help desk: ticket statistics, exports and assignments.',
};

@Module({})
export class AppModule {
  static forRoot(options: HelpdeskAppOptions): DynamicModule {
    const { oauth, requestStateKey, redisUrl } = options;
    const requestState = requestStateKey ? { requestState: { key: requestStateKey } } : {};
    const redis = redisUrl ? new Redis(redisUrl) : undefined;
    // ioredis reconnects on its own; without a listener each failed attempt is printed as an
    // unhandled error.
    redis?.on('error', (error) => redisLogger.warn(error.message));
    // One Redis for the tasks and for what crosses instances; in memory without it.
    const shared = redis
      ? {
          bus: new RedisInstanceBus({ redis }),
          tasks: { store: new RedisTaskStore({ redis }) },
        }
      : {};
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(options.databaseFile),
        HelpdeskModule,
        HealthModule,
        ToolsModule.forRoot({
          registry,
          context: CallerContextResolver,
          logCalls: options.logCalls ?? false,
          mcp: oauth
            ? {
                // toolwright mounts the endpoint and signs its callers in: a request without a
                // valid token for `resource` gets a 401 naming the authorization server.
                serverInfo,
                select: { exclude: ADMIN_ONLY_TOOLS },
                ...requestState,
                ...shared,
                auth: {
                  issuers: oauth.issuer,
                  resource: oauth.resource,
                  scopesSupported: HELPDESK_SCOPES,
                  resourceName: 'Help desk sample',
                },
              }
            : // The application mounts the endpoints itself (McpController, AdminMcpController)
              // to guard them.
              {
                mount: false,
                serverInfo,
                select: { exclude: ADMIN_ONLY_TOOLS },
                ...requestState,
                ...shared,
                endpoints: [adminEndpoint],
              },
        }),
      ],
      controllers: oauth
        ? [TicketsController]
        : [McpController, AdminMcpController, TicketsController],
      providers: [
        ApiKeyGuard,
        AdminGuard,
        AdminTools,
        CallerContextResolver,
        RankedSearchTools,
        SessionTools,
        ...(redis ? [{ provide: SAMPLE_REDIS, useValue: redis }, RedisConnection] : []),
      ],
    };
  }
}
