import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { ManagersOnly } from './managers-only.guard.js';
import { OrderTools } from './order.tools.js';
import { OrdersService } from './orders.service.js';
import { ReportTools } from './report.tools.js';

/** What your authentication (a guard or middleware on every route) leaves on the request. */
interface ShopRequest {
  headers: Record<string, string | string[] | undefined>;
  user?: { role?: string };
}

@Module({
  imports: [
    // Was `new McpStrategy({ name, version, transports: [new StreamableHttpTransport()] })`.
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [OrderTools, ReportTools] }),
      // Was read from the raw request in each handler and guard: now once per call, here.
      context: (request: ShopRequest) => ({
        tenantId: request.headers['x-tenant-id'],
        role: request.user?.role,
      }),
      mcp: { serverInfo: { name: 'shop', version: '1.0.0' } },
    }),
  ],
  // The tool classes move from `controllers` to `providers`; the MCP_STRATEGY provider goes.
  providers: [OrdersService, OrderTools, ReportTools, ManagersOnly],
})
export class AppModule {}
