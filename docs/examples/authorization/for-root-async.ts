import { Injectable, Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { CallerFromToken } from './caller.resolver.js';
import { InvoiceTools } from './invoice.tools.js';

/** Stands in for `ConfigService` of `@nestjs/config`, whose `getOrThrow` reads the same way. */
@Injectable()
export class AuthSettings {
  getOrThrow(name: 'OAUTH_ISSUER' | 'MCP_URL'): string {
    const value = process.env[name];
    if (value === undefined) throw new Error(`${name} is not set`);
    return value;
  }
}

@Module({ providers: [AuthSettings], exports: [AuthSettings] })
export class SettingsModule {}

@Module({
  imports: [
    ToolsModule.forRootAsync({
      registry: defineToolRegistry({ defaults: [InvoiceTools] }),
      // The endpoint's shape is decided before DI runs...
      mcp: { serverInfo: { name: 'billing', version: '1.0.0' } },
      // ...its sign-in may come from configuration: `mcpAuth`, the same options as `mcp.auth`.
      imports: [SettingsModule],
      inject: [AuthSettings],
      useFactory: (settings: AuthSettings) => ({
        context: CallerFromToken,
        mcpAuth: {
          issuers: settings.getOrThrow('OAUTH_ISSUER'),
          resource: settings.getOrThrow('MCP_URL'),
          scopesSupported: ['billing:read', 'billing:write'],
        },
      }),
    }),
  ],
  providers: [InvoicesService, InvoiceTools, CallerFromToken],
})
export class ConfiguredBillingModule {}
