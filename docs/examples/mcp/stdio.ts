import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { defineToolRegistry, serveAppStdio, StderrLogger, ToolsModule } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';
import { exportReport } from '../tools/runtime-tools.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, exportReport] }),
      mcp: { mount: false, serverInfo: { name: 'billing', version: '1.0.0' } },
    }),
  ],
  providers: [InvoicesService, InvoiceTools],
})
class StdioModule {}

// stdout carries the protocol: no HTTP server, and every log line goes to stderr.
const app = await NestFactory.createApplicationContext(StdioModule, { logger: new StderrLogger() });
app.enableShutdownHooks();
// There is no request to resolve a context from: give the context of every call.
serveAppStdio(app, { context: { tenantId: process.env.TENANT_ID ?? 'acme' } });
