import { Inject, Injectable } from '@nestjs/common';
import { Tool, ToolError, ToolFactory, type ToolCall } from 'toolwright';
import { z } from 'zod';

/** The payments of the example: a read, and a write that must happen once. */
export abstract class Payments {
  abstract invoice(id: string): Promise<{ id: string; amount: number; refunded: boolean }>;
  /** Refunds once per key: a second call with the same key changes nothing. */
  abstract refund(invoiceId: string, amount: number, idempotencyKey: string): Promise<void>;
}

const Reason = z.object({
  reason: z.enum(['duplicate', 'fraud', 'requested']).meta({ title: 'Reason' }),
  note: z.string().max(200).optional().meta({ title: 'Note for the customer' }),
});

@ToolFactory({ serviceName: 'billing' })
@Injectable()
export class RefundTools {
  constructor(@Inject(Payments) private readonly payments: Payments) {}

  @Tool({
    action: 'refundInvoice',
    method: 'POST',
    description: 'Refund an invoice, once the user confirms and gives a reason.',
    input: z.object({ id: z.string() }),
    asks: { confirm: true, elicit: [Reason] },
  })
  async refund({ input, confirm, elicit }: ToolCall<{ id: string }>) {
    // Reads before the questions are safe: on MCP's 2026-07-28 era the handler runs again,
    // from the start, once per answer.
    const invoice = await this.payments.invoice(input.id);
    if (invoice.refunded) return { refunded: false, reason: 'already refunded' };
    if (!(await confirm(`Refund ${invoice.amount} on ${invoice.id}?`))) {
      return { refunded: false, reason: 'not confirmed' };
    }
    const answer = await elicit({ message: 'Why is it refunded?', schema: Reason });
    if (answer.action !== 'accept') {
      throw new ToolError('CONFLICT', { message: 'A refund needs a reason.' });
    }
    // The write comes after every question, keyed so that a repeated call cannot pay twice.
    await this.payments.refund(invoice.id, invoice.amount, `refund:${invoice.id}`);
    return { refunded: true, reason: answer.content.reason };
  }
}
