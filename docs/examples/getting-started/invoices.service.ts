import { Injectable } from '@nestjs/common';
import { ToolError } from 'toolwright';

export interface Invoice {
  id: string;
  tenantId: string;
  amount: number;
  status: 'open' | 'paid' | 'void';
}

/** An ordinary Nest service: the tools below call it, so does the rest of the app. */
@Injectable()
export class InvoicesService {
  private readonly invoices = new Map<string, Invoice>([
    ['inv_1', { id: 'inv_1', tenantId: 'acme', amount: 120, status: 'open' }],
    ['inv_2', { id: 'inv_2', tenantId: 'acme', amount: 80, status: 'paid' }],
    ['inv_3', { id: 'inv_3', tenantId: 'globex', amount: 300, status: 'open' }],
  ]);

  list(tenantId: string): Invoice[] {
    return [...this.invoices.values()].filter((invoice) => invoice.tenantId === tenantId);
  }

  find(tenantId: string, id: string): Invoice {
    const invoice = this.invoices.get(id);
    if (!invoice || invoice.tenantId !== tenantId) {
      throw new ToolError('NOT_FOUND', {
        message: `No invoice ${id}.`,
        hint: 'Call billing_list_invoices to see the invoice ids.',
      });
    }
    return invoice;
  }

  void(tenantId: string, id: string): Invoice {
    const invoice = this.find(tenantId, id);
    invoice.status = 'void';
    return invoice;
  }
}
