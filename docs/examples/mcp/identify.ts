import { Module } from '@nestjs/common';
import { ToolsModule, type IdentifyCaller } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { InvoicesService } from '../getting-started/invoices.service.js';

/** What your own guard put on the request. */
interface Member {
  tenantId: string;
  id: string;
}

/** One caller per member of a tenant: their tasks, answers and cancellations are theirs alone. */
const byMember: IdentifyCaller = (request) => {
  const user = (request as { user?: Member }).user;
  return user && `${user.tenantId}/${user.id}`;
};

@Module({
  imports: [ToolsModule.forRoot({ registry: [InvoiceTools], mcp: { identify: byMember } })],
  providers: [InvoicesService, InvoiceTools],
})
export class IdentifiedAppModule {}
