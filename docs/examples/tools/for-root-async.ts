import { Injectable, Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { addNote, listNotes } from './factory.js';

/** Stands in for your configuration service. */
@Injectable()
export class AppConfig {
  readonly tenantHeader = process.env.TENANT_HEADER ?? 'x-tenant-id';
  readonly logToolCalls = process.env.LOG_TOOL_CALLS === 'true';
}

@Module({ providers: [AppConfig], exports: [AppConfig] })
export class ConfigModule {}

@Module({
  imports: [
    ToolsModule.forRootAsync({
      // The registry and the MCP mount shape the module, so they are given directly...
      registry: defineToolRegistry({ defaults: [addNote, listNotes] }),
      mcp: { path: '/mcp' },
      // ...while the options that may come from DI are built by a factory.
      imports: [ConfigModule],
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        logCalls: config.logToolCalls,
        context: (request: { headers: Record<string, string | undefined> }) => ({
          tenantId: request.headers[config.tenantHeader],
        }),
      }),
    }),
  ],
})
export class AsyncAppModule {}
