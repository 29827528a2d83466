/**
 * What a tool's schema library costs a call: `invoker.invoke` of one tool (an object input of a
 * string and an optional integer, an object output) declared with Zod, Valibot, ArkType and a
 * plain JSON Schema (validated by Ajv), in one process, interleaved round by round after a
 * warm-up. Prints calls per second and each library's ratio to Zod.
 *
 * With BENCH_REFERENCE=<a built dist/ of another revision>, the Zod tool also runs on that
 * revision's invoker, interleaved with the rest: the ratio says whether Zod's path got slower.
 *
 * Run with `npm run bench:schema` (about 15 s). It prints figures only; it asserts correctness
 * (every call answers), never timings. Tune with BENCH_SLICE_MS (default 250) and BENCH_ROUNDS
 * (default 8).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, type ToolSchema } from '../lib/index.js';

const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

const zodInput = z.object({ id: z.string().min(2), qty: z.int().min(1).optional() });
const zodOutput = z.object({ id: z.string(), total: z.number() });
const LIBRARIES: Record<string, { input: any; output: ToolSchema }> = {
  zod: { input: zodInput, output: zodOutput },
  valibot: {
    input: toStandardJsonSchema(
      v.object({
        id: v.pipe(v.string(), v.minLength(2)),
        qty: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
    ),
    output: toStandardJsonSchema(v.object({ id: v.string(), total: v.number() })),
  },
  arktype: {
    input: type({ id: 'string>=2', 'qty?': 'number.integer>=1' }),
    output: type({ id: 'string', total: 'number' }),
  },
  'JSON Schema': {
    input: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 2 }, qty: { type: 'integer', minimum: 1 } },
      required: ['id'],
    },
    output: {
      type: 'object',
      properties: { id: { type: 'string' }, total: { type: 'number' } },
      required: ['id', 'total'],
    },
  },
};

type Call = () => Promise<unknown>;

function invokerCall(library: typeof import('../lib/index.js'), input: any, output: any): Call {
  const invoker = library.createToolInvoker([
    library.defineRuntimeTool({
      description: 'Price an order',
      identity: { serviceName: 'orders', action: 'price', method: 'GET' },
      input,
      output,
      handler: ({ input: { id, qty = 1 } }: any) => ({ id, total: qty * 10 }),
    }),
  ]);
  const args = { id: 'o1', qty: 2 };
  return async () => {
    const result = await invoker.invoke('orders_price', args, { transport: 'MCP' });
    if (!result.ok) throw new Error(`a call failed: ${JSON.stringify(result.error)}`);
  };
}

const paths: Record<string, Call> = {};
for (const [name, { input, output }] of Object.entries(LIBRARIES)) {
  paths[name] = invokerCall({ createToolInvoker, defineRuntimeTool } as never, input, output);
}
if (process.env.BENCH_REFERENCE) {
  const url = pathToFileURL(resolve(process.env.BENCH_REFERENCE, 'index.js')).href;
  paths['zod (reference)'] = invokerCall(await import(url), zodInput, zodOutput);
}

async function slice(call: Call, ms: number): Promise<number> {
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) await call();
    calls += 100;
  }
  return calls / ((performance.now() - start) / 1000);
}

for (const call of Object.values(paths)) await slice(call, SLICE_MS);
const rates: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, call] of Object.entries(paths)) rates[name].push(await slice(call, SLICE_MS));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log(`Node ${process.version}, ${ROUNDS} rounds of ${SLICE_MS} ms per path`);
const zod = median(rates.zod);
for (const [name, values] of Object.entries(rates)) {
  const rate = median(values);
  console.log(
    `${name.padEnd(18)} ${Math.round(rate).toLocaleString('en').padStart(9)} calls/s` +
      `  ${(zod / rate).toFixed(2)}× the time of zod`,
  );
}
