import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  ToolError,
  type ToolGuard,
  type ToolResult,
} from '../../lib/core/index.js';
import { fcParams, leaksIn, safeJson } from './support.js';

/**
 * Random arguments against the runner for tools with rich Zod schemas: every answer is a
 * ToolResult, invalid input never reaches a guard or the handler, and no answer carries a stack,
 * a file path or the text of an unexpected error.
 */

// ---------------------------------------------------------------------------------------------
// A rich schema: unions, a discriminated union, nesting, arrays, refinements, optional/default,
// enums, records, nullable, a transform.

const Address = z.object({
  street: z.string().min(1).max(80),
  zip: z.string().regex(/^\d{5}$/),
  country: z.enum(['DE', 'FR', 'NL']).default('DE'),
});

const Fulfilment = z.discriminatedUnion('type', [
  z.object({ type: z.literal('pickup'), store: z.string().min(2) }),
  z.object({ type: z.literal('delivery'), address: Address, express: z.boolean().optional() }),
]);

const Payment = z.union([
  z.object({ card: z.string().length(16).regex(/^\d+$/) }),
  z.object({ invoice: z.literal(true), vatId: z.string().optional() }),
]);

const Item = z.object({
  sku: z.string().regex(/^[A-Z]{3}-\d{3}$/),
  qty: z.number().int().positive().max(99),
  giftWrap: z.boolean().default(false),
});

const OrderInput = z
  .object({
    customer: z.string().min(1).max(40),
    fulfilment: Fulfilment,
    payment: Payment,
    items: z.array(Item).min(1).max(10),
    priority: z.enum(['low', 'normal', 'high']).default('normal'),
    note: z.string().max(200).optional(),
    coupon: z.string().nullable().optional(),
    window: z
      .object({ from: z.number(), to: z.number() })
      .refine((w) => w.from < w.to, 'from must come before to')
      .optional(),
    tags: z.record(z.string(), z.string().max(20)).optional(),
    reference: z
      .string()
      .transform((value) => value.trim().toUpperCase())
      .optional(),
  })
  .refine((order) => order.items.length < 5 || order.priority !== 'low', {
    message: 'Large orders cannot be low priority',
    path: ['priority'],
  });

const OrderOutput = z.object({ orderId: z.string(), lines: z.number().int() });

// The values a handler or a refinement throws carry this; no answer may contain it.
const SECRET = 'secret db at 10.0.0.4 /work/main/lib/secret.ts:12:7';

// ---------------------------------------------------------------------------------------------
// Tools with spies.

interface Spies {
  handled: Record<string, unknown[]>;
  guarded: Record<string, unknown[]>;
}

function setup() {
  const spies: Spies = { handled: {}, guarded: {} };
  const record = (bucket: Record<string, unknown[]>, name: string, value: unknown) =>
    (bucket[name] ??= []).push(value);
  const identity = (action: string) => ({ serviceName: 'shop', action, method: 'POST' as const });

  const placeOrder = defineRuntimeTool({
    description: 'Place an order',
    identity: identity('placeOrder'),
    input: OrderInput,
    output: OrderOutput,
    handler: ({ input }) => {
      record(spies.handled, 'shop_place_order', input);
      return { orderId: `O-${input.customer.length}`, lines: input.items.length };
    },
  });

  // An async refinement: the runner must take the async parse path.
  const quote = defineRuntimeTool({
    description: 'Quote a price',
    identity: identity('quote'),
    input: z
      .object({
        sku: Item.shape.sku,
        qty: z.coerce.number().int().min(1).max(1000),
        currency: z.enum(['EUR', 'USD']).default('EUR'),
        discount: z.preprocess(
          (value) => (typeof value === 'string' ? Number(value) : value),
          z.number().min(0).max(0.5).optional(),
        ),
      })
      .superRefine(async (value, ctx) => {
        await Promise.resolve();
        if (value.sku.startsWith('ZZZ')) ctx.addIssue({ code: 'custom', message: 'Discontinued' });
      }),
    handler: async ({ input }) => {
      record(spies.handled, 'shop_quote', input);
      await Promise.resolve();
      return { total: input.qty * 10 * (1 - (input.discount ?? 0)) };
    },
  });

  // A refinement that crashes on some inputs: an unexpected error inside parsing.
  const lookup = defineRuntimeTool({
    description: 'Look a customer up',
    identity: identity('lookup'),
    input: z.object({ query: z.string() }).refine((value) => {
      if (value.query.includes('!')) throw new TypeError(SECRET);
      return true;
    }),
    handler: ({ input }) => {
      record(spies.handled, 'shop_lookup', input);
      return { found: input.query.length };
    },
  });

  return { spies, tools: [placeOrder, quote, lookup] };
}

/** Records what each guard saw: only parsed, valid input may reach it. */
const guardSpy = (spies: Spies): ToolGuard => ({
  canActivate: ({ tool, input }) => {
    (spies.guarded[tool.name] ??= []).push(input);
    return true;
  },
});

const silent = { error: () => {}, warn: () => {} };

// ---------------------------------------------------------------------------------------------
// Checks.

/** A ToolResult, JSON-safe, with nothing more than the documented fields. */
function expectToolResult(result: ToolResult, label: string): void {
  expect({ label, ok: typeof result.ok }).toEqual({ label, ok: 'boolean' });
  if (result.ok) {
    expect(Object.keys(result).sort()).toEqual(['data', 'ok']);
    return;
  }
  const { error } = result;
  expect(error).toEqual(
    expect.objectContaining({
      code: expect.any(String),
      message: expect.any(String),
      retryable: expect.any(Boolean),
    }),
  );
  expect(
    Object.keys(error).every((key) =>
      ['code', 'message', 'retryable', 'details', 'hint'].includes(key),
    ),
  ).toBe(true);
  // JSON-safe: it survives a round trip unchanged.
  expect(JSON.parse(JSON.stringify(error))).toEqual(error);
}

function expectNoLeak(result: ToolResult, input: unknown): void {
  const text = safeJson(result);
  expect({ leaks: leaksIn(text, safeJson(input)), secret: text.includes('10.0.0.4') }).toEqual({
    leaks: [],
    secret: false,
  });
}

// ---------------------------------------------------------------------------------------------
// Arbitraries.

const anything = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  key: fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'then')),
});

const sku = fc
  .tuple(fc.stringMatching(/^[A-Z]{3}$/), fc.integer({ min: 0, max: 999 }))
  .map(([letters, n]) => `${letters}-${String(n).padStart(3, '0')}`);

const validOrder = fc.record(
  {
    customer: fc.string({ minLength: 1, maxLength: 40 }),
    fulfilment: fc.oneof(
      fc.record({ type: fc.constant('pickup'), store: fc.string({ minLength: 2, maxLength: 10 }) }),
      fc.record(
        {
          type: fc.constant('delivery'),
          address: fc.record(
            {
              street: fc.string({ minLength: 1, maxLength: 80 }),
              zip: fc.stringMatching(/^\d{5}$/),
              country: fc.constantFrom('DE', 'FR', 'NL'),
            },
            { requiredKeys: ['street', 'zip'] },
          ),
          express: fc.boolean(),
        },
        { requiredKeys: ['type', 'address'] },
      ),
    ),
    payment: fc.oneof(
      fc.record({ card: fc.stringMatching(/^\d{16}$/) }),
      fc.record({ invoice: fc.constant(true), vatId: fc.string() }, { requiredKeys: ['invoice'] }),
    ),
    items: fc.array(
      fc.record(
        { sku, qty: fc.integer({ min: 1, max: 99 }), giftWrap: fc.boolean() },
        { requiredKeys: ['sku', 'qty'] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
    priority: fc.constantFrom('low', 'normal', 'high'),
    note: fc.string({ maxLength: 200 }),
    coupon: fc.option(fc.string(), { nil: null }),
    window: fc
      .tuple(fc.integer(), fc.integer({ min: 1, max: 1000 }))
      .map(([from, span]) => ({ from, to: from + span })),
    tags: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
    reference: fc.string({ maxLength: 12 }),
  },
  { requiredKeys: ['customer', 'fulfilment', 'payment', 'items'] },
);

const ORDER_PATHS = [
  ['customer'],
  ['fulfilment'],
  ['fulfilment', 'type'],
  ['fulfilment', 'address'],
  ['fulfilment', 'address', 'zip'],
  ['payment'],
  ['payment', 'card'],
  ['items'],
  ['items', 0],
  ['items', 0, 'qty'],
  ['items', 0, 'sku'],
  ['priority'],
  ['window'],
  ['window', 'from'],
  ['tags'],
  ['reference'],
] as const;

/** A valid order with one value somewhere replaced by anything (or removed). */
const nearValidOrder = fc
  .tuple(validOrder, fc.constantFrom(...ORDER_PATHS), fc.option(anything, { nil: undefined }))
  .map(([order, path, value]) => {
    const copy: any = structuredClone(order);
    let node = copy;
    for (const key of path.slice(0, -1)) {
      if (typeof node?.[key] !== 'object' || node[key] === null) return copy;
      node = node[key];
    }
    const last = path.at(-1)!;
    if (value === undefined) delete node[last];
    else node[last] = value;
    return copy;
  });

const orderArgs = fc.oneof(
  { weight: 2, arbitrary: validOrder as fc.Arbitrary<unknown> },
  { weight: 3, arbitrary: nearValidOrder },
  { weight: 2, arbitrary: anything },
  { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
);

// ---------------------------------------------------------------------------------------------

describe('random arguments against the runner', () => {
  it('shop_place_order: a ToolResult for anything; the handler sees exactly the parsed valid input', async () => {
    const { spies, tools } = setup();
    const invoker = createToolInvoker(tools, { guards: [guardSpy(spies)], logger: silent });
    let valid = 0;
    let invalid = 0;
    await fc.assert(
      fc.asyncProperty(orderArgs, async (args) => {
        const before = spies.handled.shop_place_order?.length ?? 0;
        const guardedBefore = spies.guarded.shop_place_order?.length ?? 0;
        // What the schema says, computed before the call (the call must not change the input).
        const expected = OrderInput.safeParse(args);
        const result = await invoker.invoke('shop_place_order', args, { transport: 'AGENT' });
        expectToolResult(result, 'place_order');
        expectNoLeak(result, args);
        const handled = spies.handled.shop_place_order ?? [];
        const guarded = spies.guarded.shop_place_order ?? [];
        if (!expected.success) {
          invalid++;
          expect(result).toEqual({
            ok: false,
            error: expect.objectContaining({
              code: 'VALIDATION_ERROR',
              details: expect.objectContaining({ target: 'input', issues: expect.any(Array) }),
            }),
          });
          expect(handled.length).toBe(before);
          expect(guarded.length).toBe(guardedBefore);
        } else {
          valid++;
          expect(result).toEqual({
            ok: true,
            data: { orderId: expect.any(String), lines: expected.data.items.length },
          });
          expect(handled.length).toBe(before + 1);
          expect(handled.at(-1)).toEqual(expected.data);
          expect(guarded.at(-1)).toEqual(expected.data);
        }
      }),
      fcParams(400),
    );
    // Both branches were exercised.
    expect(valid).toBeGreaterThan(20);
    expect(invalid).toBeGreaterThan(20);
  });

  it('shop_quote (async refinement, coercion, preprocess): same invariants on the async parse path', async () => {
    const { spies, tools } = setup();
    const invoker = createToolInvoker(tools, { guards: [guardSpy(spies)], logger: silent });
    const quoteArgs = fc.oneof(
      fc.record(
        {
          sku: fc.oneof(sku, fc.constant('ZZZ-001'), fc.string()),
          qty: fc.oneof(fc.integer({ min: -5, max: 1200 }), fc.string({ maxLength: 4 }), anything),
          currency: fc.oneof(fc.constantFrom('EUR', 'USD', 'GBP'), anything),
          discount: fc.oneof(fc.double({ noNaN: false }), fc.string({ maxLength: 4 }), anything),
        },
        { requiredKeys: [] },
      ),
      anything,
    );
    const schema = tools[1].input;
    await fc.assert(
      fc.asyncProperty(quoteArgs, async (args) => {
        const before = spies.handled.shop_quote?.length ?? 0;
        let expected: z.ZodSafeParseResult<unknown> | 'throws';
        try {
          expected = await schema.safeParseAsync(args);
        } catch {
          expected = 'throws';
        }
        const result = await invoker.invoke('shop_quote', args, { transport: 'AGENT' });
        expectToolResult(result, 'quote');
        expectNoLeak(result, args);
        const handled = spies.handled.shop_quote ?? [];
        if (expected === 'throws') {
          expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
          expect(handled.length).toBe(before);
        } else if (!expected.success) {
          expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
          expect(handled.length).toBe(before);
        } else {
          expect(result.ok).toBe(true);
          expect(handled.length).toBe(before + 1);
          expect(handled.at(-1)).toEqual(expected.data);
        }
      }),
      fcParams(300),
    );
  });

  it('a refinement that throws is an internal error whose text never reaches the caller', async () => {
    const { spies, tools } = setup();
    const invoker = createToolInvoker(tools, { logger: silent });
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.boolean(), async (query, bang) => {
        const args = { query: bang ? `${query}!` : query.replaceAll('!', '') };
        const before = spies.handled.shop_lookup?.length ?? 0;
        const result = await invoker.invoke('shop_lookup', args, { transport: 'AGENT' });
        expectToolResult(result, 'lookup');
        expectNoLeak(result, args);
        if (bang) {
          expect(result).toEqual({
            ok: false,
            error: {
              code: 'INTERNAL_SERVER_ERROR',
              message: 'Internal server error',
              retryable: false,
            },
          });
          expect(spies.handled.shop_lookup?.length ?? 0).toBe(before);
        } else {
          expect(result).toEqual({ ok: true, data: { found: args.query.length } });
        }
      }),
      fcParams(100),
    );
  });

  it('whatever a handler throws, the caller sees only INTERNAL_SERVER_ERROR, or a ToolError as declared', async () => {
    let thrown: unknown;
    const errorsSeen: unknown[] = [];
    const crash = defineRuntimeTool({
      description: 'Throw what it is told',
      identity: { serviceName: 'shop', action: 'crash', method: 'POST' },
      input: z.object({}),
      handler: async () => {
        await Promise.resolve();
        throw thrown;
      },
    });
    const invoker = createToolInvoker([crash], {
      logger: silent,
      hooks: { onToolError: ({ error }) => void errorsSeen.push(error) },
    });
    const secretText = fc.string().map((s) => `${s} ${SECRET}`);
    const unexpected = fc.oneof(
      secretText.map((message) => new Error(message)),
      secretText.map((message) => new TypeError(message)),
      secretText.map((message) => new RangeError(message)),
      secretText.map((message) => Object.assign(new Error(message), { status: 400, code: 'E_DB' })),
      secretText.map((message) => ({
        message,
        stack: `Error: ${message}\n    at /work/main/x.ts:1:1`,
      })),
      secretText.map((message) => ({ name: 'ZodLike', message, issues: 'not an array' })),
      secretText,
      anything,
      fc.constant(undefined),
      fc.constant(null),
    );
    await fc.assert(
      fc.asyncProperty(unexpected, async (value) => {
        thrown = value;
        const result = await invoker.invoke('shop_crash', {}, { transport: 'AGENT' });
        expectToolResult(result, 'crash');
        expectNoLeak(result, {});
        expect(result).toEqual({
          ok: false,
          error: {
            code: 'INTERNAL_SERVER_ERROR',
            message: 'Internal server error',
            retryable: false,
          },
        });
        // The value itself stays in-process for onToolError.
        expect(errorsSeen.at(-1)).toBe(value);
      }),
      fcParams(200),
    );

    // A ToolError is deliberate: its public fields pass, its cause does not.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'APP_SPECIFIC'),
        fc.string({ maxLength: 30 }),
        async (code, message) => {
          thrown = new ToolError(code, { message, cause: new Error(SECRET), details: { n: 1 } });
          const result = await invoker.invoke('shop_crash', {}, { transport: 'AGENT' });
          expectToolResult(result, 'tool error');
          expectNoLeak(result, message);
          expect(result).toEqual({
            ok: false,
            error: { code, message, retryable: code === 'RATE_LIMITED', details: { n: 1 } },
          });
        },
      ),
      fcParams(50),
    );
  });

  it('an output that does not match its schema is INTERNAL_SERVER_ERROR, its content never shown', async () => {
    let output: unknown;
    const outputErrors: unknown[] = [];
    const report = defineRuntimeTool({
      description: 'Return what it is told',
      identity: { serviceName: 'shop', action: 'report', method: 'GET' },
      input: z.object({}),
      output: OrderOutput,
      handler: () => output as z.input<typeof OrderOutput>,
    });
    const invoker = createToolInvoker([report], {
      logger: silent,
      hooks: { onToolError: ({ error }) => void outputErrors.push(error) },
    });
    await fc.assert(
      fc.asyncProperty(anything, async (value) => {
        output = value;
        const result = await invoker.invoke('shop_report', {}, { transport: 'AGENT' });
        expectToolResult(result, 'report');
        const parsed = OrderOutput.safeParse(value);
        if (parsed.success) {
          expect(result).toEqual({ ok: true, data: parsed.data });
        } else {
          expect(result).toEqual({
            ok: false,
            error: {
              code: 'INTERNAL_SERVER_ERROR',
              message: 'Internal server error',
              retryable: false,
            },
          });
          expect(outputErrors.at(-1)).toBeInstanceOf(z.ZodError);
        }
      }),
      fcParams(150),
    );
  });
});
