import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { DatabaseService } from './database.service.js';

/** Comma-separated host names, for example `mcp.example.com`. */
const hosts = (value: string | undefined) => value?.split(',').map((host) => host.trim());

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools] }),
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
      // Running calls get this long to finish when the process is told to stop.
      shutdownGraceMs: 20_000,
      mcp: {
        // The Host header your clients send: the public name, not the pod's address.
        allowedHosts: hosts(process.env.MCP_ALLOWED_HOSTS) ?? ['localhost', '127.0.0.1'],
        // Browsers only send Origin; list the web apps allowed to call the endpoint.
        allowedOrigins: hosts(process.env.MCP_ALLOWED_ORIGINS) ?? ['localhost', '127.0.0.1'],
      },
    }),
  ],
  providers: [DatabaseService, InvoicesService, InvoiceTools],
})
export class AppModule {}
