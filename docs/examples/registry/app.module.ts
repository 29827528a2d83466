import { Module } from '@nestjs/common';
import { defineToolRegistry, ToolsModule } from 'toolwright';
import { addNote, listNotes } from '../tools/factory.js';
import { BILLING_TOOLS, BillingModule } from './billing.module.js';
import { StrictLookupTools } from './strict-lookup.tools.js';

/** The application's tool surface: the feature's defaults, one replaced, one disabled. */
export const registry = defineToolRegistry({ defaults: [...BILLING_TOOLS, addNote, listNotes] })
  .replace('billing_get_invoice', StrictLookupTools)
  .disable('billing_void_invoice');

@Module({
  imports: [
    BillingModule,
    ToolsModule.forRoot({
      registry,
      context: (request) => ({ tenantId: request.headers['x-tenant-id'] }),
    }),
  ],
  // The replacement is a tool class too: some module must provide it.
  providers: [StrictLookupTools],
})
export class AppModule {}
