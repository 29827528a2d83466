import { Injectable, UnauthorizedException } from '@nestjs/common';
import { Tool, ToolFactory, UseToolGuards, type ToolCall, type ToolGuard } from 'toolwright';
import { z } from 'zod';

/** A guard object: no DI needed. Returning false answers FORBIDDEN. */
const notFrozen: ToolGuard = {
  canActivate: () => process.env.PAYMENTS_FROZEN !== 'true',
};

/** A guard class; if no module provides it, it is built in the module of the tool class. */
@Injectable()
export class ApprovalGuard implements ToolGuard {
  canActivate({ input }: { input: unknown }): boolean {
    if ((input as { approvedBy?: string }).approvedBy === undefined) {
      // A thrown HttpException is mapped like any other: here UNAUTHORIZED.
      throw new UnauthorizedException('A second person must approve a refund.');
    }
    return true;
  }
}

const Context = z.object({ tenantId: z.string() });

@UseToolGuards(notFrozen) // every tool of the class
@ToolFactory({ serviceName: 'payments', scope: 'tenant', context: Context })
@Injectable()
export class PaymentTools {
  @Tool({
    action: 'balance',
    method: 'GET',
    description: 'Read the balance',
    input: z.object({}),
  })
  balance({ context }: ToolCall<object, z.infer<typeof Context>>) {
    return { tenantId: context.tenantId, balance: 1200 };
  }

  @UseToolGuards(ApprovalGuard) // this tool only, after the class guards
  @Tool({
    action: 'refund',
    method: 'POST',
    description: 'Refund a payment',
    input: z.object({ paymentId: z.string(), approvedBy: z.string().optional() }),
  })
  refund({ input }: ToolCall<{ paymentId: string }>) {
    return { refunded: input.paymentId };
  }
}
