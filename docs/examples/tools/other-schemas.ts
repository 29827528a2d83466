import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { defineRuntimeTool } from 'toolwright';
import * as v from 'valibot';

/** Valibot validates the input, ArkType the output; MCP lists the JSON Schema of each. */
export const priceOrder = defineRuntimeTool({
  description: 'Price an order.',
  identity: { serviceName: 'orders', action: 'price', method: 'GET' },
  // Valibot's schemas get the Standard JSON Schema interface from @valibot/to-json-schema.
  input: toStandardJsonSchema(
    v.object({
      id: v.pipe(v.string(), v.minLength(2)),
      quantity: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  ),
  // ArkType has it built in.
  output: type({ id: 'string', total: 'number' }),
  // `input` is typed by Valibot: { id: string; quantity?: number }.
  handler: ({ input }) => ({ id: input.id, total: (input.quantity ?? 1) * 10 }),
});

/** A plain JSON Schema: listed as written, validated by Ajv as the MCP SDK validates. */
export const findCustomer = defineRuntimeTool({
  description: 'Find a customer by email.',
  identity: { serviceName: 'customers', action: 'find', method: 'GET' },
  input: {
    type: 'object',
    properties: { email: { type: 'string', format: 'email' } },
    required: ['email'],
  },
  // A JSON Schema input is typed Record<string, unknown>.
  handler: ({ input }) => ({ email: String(input.email) }),
});
