import { Inject, Injectable } from '@nestjs/common';
import { ToolInvoker, type InvokeOptions } from 'toolwright';

/** Exported: a caller's inferred return type may name it (`declaration: true` needs that). */
export interface Invoice {
  id: string;
  amount: number;
  status: 'open' | 'paid' | 'void';
}

// The service names its tools itself: the default source, 'internal', fits its calls.
const AS_SERVICE: InvokeOptions = { transport: 'AGENT' };

/** An ordinary service that runs tools in-process, under the current request's context. */
@Injectable()
export class CollectionsService {
  constructor(@Inject(ToolInvoker) private readonly tools: ToolInvoker) {}

  /** `invoke` resolves to a ToolResult: branch on `ok`. */
  async outstanding(): Promise<number> {
    const result = await this.tools.invoke<{ invoices: Invoice[] }>(
      'billing_list_invoices',
      {},
      AS_SERVICE,
    );
    if (!result.ok) throw new Error(`could not list invoices: ${result.error.code}`);
    return result.data.invoices
      .filter((invoice) => invoice.status === 'open')
      .reduce((sum, invoice) => sum + invoice.amount, 0);
  }

  /** `invokeOrThrow` resolves to the data, or rejects with the call's ToolError. */
  invoice(id: string): Promise<Invoice> {
    return this.tools.invokeOrThrow<Invoice>('billing_get_invoice', { id }, AS_SERVICE);
  }

  /** What the registry exposes on a surface: names, and descriptors with JSON Schemas. */
  describe() {
    return {
      names: this.tools.names('AGENT'),
      tools: this.tools.manifest('AGENT').map(({ name, description, annotations }) => ({
        name,
        description,
        annotations,
      })),
    };
  }
}
