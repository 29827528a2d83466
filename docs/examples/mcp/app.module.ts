import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { exportReport } from '../tools/runtime-tools.js';
import { ApiKeyGuard, type Caller } from './api-key.guard.js';
import { McpController } from './mcp.controller.js';
import { viewersReadOnly } from './viewer.guard.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, exportReport] }),
      // The guard has authenticated the request: the caller becomes the call's context.
      context: (request: { user?: Caller }) => ({ ...request.user }),
      guards: [viewersReadOnly],
      mcp: {
        mount: false, // McpController serves the route...
        path: '/mcp', // ...named here, so body errors on it are answered as JSON-RPC errors
        serverInfo: { name: 'billing', version: '1.0.0' },
        instructions: 'Billing tools for the current tenant. Amounts are in euros.',
        allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
        allowedOrigins: ['localhost', '127.0.0.1', '[::1]'],
        maxBodyBytes: 4 * 1024 * 1024,
        protocol: 'dual',
      },
    }),
  ],
  controllers: [McpController],
  providers: [ApiKeyGuard, InvoicesService, InvoiceTools],
})
export class McpAppModule {}
