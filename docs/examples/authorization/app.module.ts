import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { CallerFromToken } from './caller.resolver.js';
import { InvoiceTools } from './invoice.tools.js';
import { exportLedger } from './ledger.tool.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, exportLedger] }),
      context: CallerFromToken,
      mcp: {
        serverInfo: { name: 'billing', version: '1.0.0' },
        // The public host name clients use (the Host check; see Deploying).
        allowedHosts: ['api.example.com'],
        auth: {
          // Whose tokens are accepted: the authorization server's issuer identifier.
          issuers: 'https://sso.example.com/realms/billing',
          // The endpoint as clients reach it: tokens must be issued for it (their audience).
          resource: 'https://api.example.com/mcp',
          // Advertised in the metadata and in the 401 challenge.
          scopesSupported: ['billing:read', 'billing:write', 'billing:export'],
          resourceName: 'Billing',
        },
      },
    }),
  ],
  providers: [InvoicesService, InvoiceTools, CallerFromToken],
})
export class BillingAppModule {}
