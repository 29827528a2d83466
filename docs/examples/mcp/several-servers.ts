import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { exportReport } from '../tools/runtime-tools.js';

const ISSUER = 'https://sso.example.com/realms/billing';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, exportReport] }),
      mcp: {
        // The first server, at /mcp: the billing tools, for the billing team's assistants.
        serverInfo: { name: 'billing', version: '1.0.0' },
        select: { classes: [InvoiceTools] },
        auth: { issuers: ISSUER, resource: 'https://api.example.com/mcp' },
        // Set once here, for every endpoint that does not set its own.
        requestState: { key: process.env.MCP_STATE_KEY },
        endpoints: [
          {
            // The second server: the reports, and one billing tool that /mcp serves too.
            path: '/reports/mcp',
            select: { services: ['reports'], include: ['billing_get_invoice'] },
            serverInfo: { name: 'reports', version: '1.0.0' },
            instructions: 'Monthly reports. Exports take a while: follow their progress.',
            // Its own resource: a token for /mcp is refused here, and the other way round.
            auth: {
              issuers: ISSUER,
              resource: 'https://api.example.com/reports/mcp',
              scopesSupported: ['reports:read'],
            },
          },
        ],
      },
    }),
  ],
  providers: [InvoicesService, InvoiceTools],
})
export class SeveralServersModule {}
