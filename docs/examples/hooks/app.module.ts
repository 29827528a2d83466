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
      // logUnexpectedErrors keeps its default, 'error': each unexpected failure is logged once
      // with its stack, a throw from a beforeToolCall hook too (onToolError never sees those).
      // AuditHooks.onToolError logs only the refusals, which that log leaves out.
    }),
  ],
  providers: [PaymentTools, ApprovalGuard, AuditHooks, TenantPolicy, TenantGuard, ToolMetrics],
})
export class AppModule {}
