/**
 * The application module the examples of the Nest layer start, and the `@example` of
 * `ToolsModule` (see nest.examples.ts for the others).
 */
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { Module } from '@nestjs/common';
import { pingTool } from './core.examples.js';
import { InvoiceTools } from './nest.examples.js';

@Module({})
class BillingModule {}

//#region ToolsModule
@Module({
  imports: [
    BillingModule,
    ToolsModule.forRoot({
      registry: defineToolRegistry({ defaults: [InvoiceTools, pingTool] }),
      context: (req) => ({ tenantId: req.headers['x-tenant-id'], userId: req.user?.sub }),
    }),
  ],
})
export class AppModule {}
//#endregion
