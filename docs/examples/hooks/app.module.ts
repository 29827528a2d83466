import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { AuditHooks, slowCallWarnings } from './audit.hooks.js';
import { ApprovalGuard, PaymentTools } from './guarded.tools.js';
import { ToolMetrics } from './metrics.service.js';
import { TenantGuard, TenantPolicy } from './tenant.guard.js';

@Module({
  imports: [
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [PaymentTools] }),
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
      // Hook objects or injectable classes, run in this order on every call.
      hooks: [AuditHooks, slowCallWarnings],
      // Run on every call, before the class and method guards of the tool.
      guards: [TenantGuard],
      // One log line per finished call through Nest's Logger (context "ToolsModule").
      logCalls: true,
      // AuditHooks.onToolError logs unexpected failures with their stack: not twice.
      logUnexpectedErrors: false,
    }),
  ],
  providers: [PaymentTools, ApprovalGuard, AuditHooks, TenantPolicy, TenantGuard, ToolMetrics],
})
export class AppModule {}
