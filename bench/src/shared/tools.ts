/**
 * The tools every benchmark target serves, so that all of them do the same work per request:
 * `echo` (input `{ text: string }`, output `{ text }`) and `tool_0 … tool_{N-2}` (input
 * `{ text: string, n?: number }`, output `{ text: string }`). Every target builds its own Zod
 * schemas from this description with the same Zod copy, and marks every tool read-only, which is
 * what toolwright derives from `method: 'GET'`, so that `tools/list` answers carry the same fields.
 */

/** Total tools registered (echo included) unless `TOOLS` says otherwise: echo and 50 more. */
export const DEFAULT_TOOL_COUNT = 51;

export interface BenchToolSpec {
  readonly name: string;
  readonly description: string;
  /** Whether the input has the optional `n: number`. */
  readonly withN: boolean;
}

/** `TOOLS` from the environment: the total number of tools, echo included (at least 1). */
export function toolCountFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TOOLS;
  if (raw === undefined || raw === '') return DEFAULT_TOOL_COUNT;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`TOOLS must be a positive integer (echo included), got "${raw}".`);
  }
  return count;
}

/** `echo` followed by `tool_0 … tool_{count-2}`. */
export function benchTools(count: number): BenchToolSpec[] {
  const tools: BenchToolSpec[] = [
    { name: 'echo', description: 'Echo the text back', withN: false },
  ];
  for (let i = 0; i < count - 1; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Benchmark tool ${i}: returns the text it was given`,
      withN: true,
    });
  }
  return tools;
}

/** The Zod namespace a target builds its schemas with (rekog's copy is its own CommonJS build). */
export type ZodApi = Pick<typeof import('zod').z, 'object' | 'string' | 'number'>;

/** A tool's input schema: `{ text }`, or `{ text, n? }` for `tool_*`. */
export const benchInput = (z: ZodApi, spec: BenchToolSpec) =>
  spec.withN
    ? z.object({ text: z.string(), n: z.number().optional() })
    : z.object({ text: z.string() });

/** Every tool's output schema: `{ text }`. */
export const benchOutput = (z: ZodApi) => z.object({ text: z.string() });

/** What every tool's handler returns. */
export const answer = (input: { text: string }) => ({ text: input.text });

/** The annotations every target advertises for every tool. */
export const ANNOTATIONS = Object.freeze({ readOnlyHint: true });

/** The JSON body limit every bench server sets (4 MiB), so no server refuses what another takes. */
export const BENCH_BODY_LIMIT = 4 * 1024 * 1024;
