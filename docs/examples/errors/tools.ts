import { ConflictException, ServiceUnavailableException } from '@nestjs/common';
import { defineRuntimeTool, ToolError } from 'toolwright';
import { z } from 'zod';

const identity = (action: string) => ({ serviceName: 'seats', action, method: 'POST' }) as const;

/** A ToolError reaches the caller as thrown: code, message, retryable, details, hint. */
export const reserve = defineRuntimeTool({
  description: 'Reserve a seat',
  identity: identity('reserve'),
  input: z.object({ seat: z.string() }),
  handler: ({ input }) => {
    throw new ToolError('CONFLICT', {
      message: `Seat ${input.seat} is taken.`,
      details: { seat: input.seat },
      hint: 'Call seats_list to pick a free seat.',
    });
  },
});

/** Your own code: status 402 is not retryable; `retryable` can always be set explicitly. */
export const pay = defineRuntimeTool({
  description: 'Pay for a reservation',
  identity: identity('pay'),
  input: z.object({ reservationId: z.string() }),
  handler: () => {
    throw new ToolError('PAYMENT_REQUIRED', { status: 402, message: 'The card was declined.' });
  },
});

/** Anything else is scrubbed: the caller sees INTERNAL_SERVER_ERROR, hooks see the original. */
export const sync = defineRuntimeTool({
  description: 'Sync seats with the box office',
  identity: identity('sync'),
  input: z.object({}),
  handler: () => {
    throw new Error('connect ECONNREFUSED 10.0.0.4:5432');
  },
});

/** Nest HttpExceptions are mapped: a 4xx keeps its message, a 5xx does not. */
export const hold = defineRuntimeTool({
  description: 'Hold a seat for ten minutes',
  identity: identity('hold'),
  input: z.object({ seat: z.string() }),
  handler: ({ input }) => {
    if (input.seat === 'A1') throw new ConflictException('A1 is already held.');
    throw new ServiceUnavailableException('box office at 10.0.0.4 is down');
  },
});

/** An output that does not match its schema is a bug: the caller learns nothing about it. */
export const count = defineRuntimeTool({
  description: 'Count the free seats',
  identity: identity('count'),
  input: z.object({}),
  output: z.object({ free: z.number() }),
  handler: () => ({ free: 'many' }) as unknown as { free: number },
});

/** A tool that does not finish in time answers REQUEST_TIMEOUT, which is retryable. */
export const slow = defineRuntimeTool({
  description: 'Recompute the seating plan',
  identity: identity('slow'),
  input: z.object({}),
  timeoutMs: 50,
  handler: ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', resolve)),
});
