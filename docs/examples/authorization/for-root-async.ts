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
      // The endpoint's options may be given here, before DI runs...
      mcp: { serverInfo: { name: 'billing', version: '1.0.0' } },
      // ...and from configuration: the factory's `mcp` is laid over them.
      imports: [SettingsModule],
      inject: [AuthSettings],
      useFactory: (settings: AuthSettings) => ({
        context: CallerFromToken,
        mcp: {
          auth: {
            issuers: settings.getOrThrow('OAUTH_ISSUER'),
            resource: settings.getOrThrow('MCP_URL'),
            scopesSupported: ['billing:read', 'billing:write'],
          },
        },
      }),
    }),
  ],
  providers: [InvoicesService, InvoiceTools, CallerFromToken],
})
export class ConfiguredBillingModule {}
