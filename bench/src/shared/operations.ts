/**
 * The resources, resource templates and prompts the toolwright bench server declares beside its
 * tools (`OPERATIONS`, on unless `0`), so that `resources/list`, `prompts/list` and
 * `resources/read` answers carry what an application's would: 10 static resources with markdown
 * bodies (`bench://docs/doc-0 … doc-9`), 5 templates (`bench://{kind}/{id}`-style, one variable
 * each) and 10 prompts (one required string argument, the odd ones a second, optional one).
 * Their names never clash with the tools' (`echo`, `tool_*`), and `tools/list` is unchanged.
 */

export const RESOURCE_COUNT = 10;
export const TEMPLATE_COUNT = 5;
export const PROMPT_COUNT = 10;

export interface BenchResourceSpec {
  readonly name: string;
  readonly uri: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
  readonly text: string;
}

export interface BenchTemplateSpec {
  readonly name: string;
  readonly uriTemplate: string;
  readonly description: string;
  readonly mimeType: string;
  /** The template's one variable. */
  readonly variable: string;
}

export interface BenchPromptSpec {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Whether the prompt takes the optional `tone` argument besides `topic`. */
  readonly withTone: boolean;
}

/** `OPERATIONS` from the environment: whether the server declares resources and prompts. */
export function operationsFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.OPERATIONS;
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new Error(`OPERATIONS must be "1" (the default) or "0", got "${raw}".`);
}

/** The markdown body of static resource `i`: a few hundred bytes, as a short document is. */
function documentText(i: number): string {
  return [
    `# Bench document ${i}`,
    '',
    `Document ${i} of the toolwright benchmark: a static resource whose body is fixed text, read`,
    'through `resources/read` as an application would read a handbook page or a policy.',
    '',
    `- section: ${i % 3 === 0 ? 'guides' : i % 3 === 1 ? 'reference' : 'policies'}`,
    `- revision: ${i + 1}`,
    '',
  ].join('\n');
}

/** `doc_0 … doc_{RESOURCE_COUNT-1}` at `bench://docs/doc-<i>`. */
export function benchResources(): BenchResourceSpec[] {
  return Array.from({ length: RESOURCE_COUNT }, (_, i) => ({
    name: `doc_${i}`,
    uri: `bench://docs/doc-${i}`,
    title: `Bench document ${i}`,
    description: `Benchmark document ${i}: fixed markdown text`,
    mimeType: 'text/markdown',
    text: documentText(i),
  }));
}

const TEMPLATE_KINDS = ['articles', 'tickets', 'customers', 'invoices', 'releases'] as const;

/** `record_<kind>` at `bench://<kind>/{id}`, one per kind. */
export function benchTemplates(): BenchTemplateSpec[] {
  return TEMPLATE_KINDS.slice(0, TEMPLATE_COUNT).map((kind) => ({
    name: `record_${kind}`,
    uriTemplate: `bench://${kind}/{id}`,
    description: `One of the benchmark's ${kind}, by id`,
    mimeType: 'application/json',
    variable: 'id',
  }));
}

/** `prompt_0 … prompt_{PROMPT_COUNT-1}`. */
export function benchPrompts(): BenchPromptSpec[] {
  return Array.from({ length: PROMPT_COUNT }, (_, i) => ({
    name: `prompt_${i}`,
    title: `Bench prompt ${i}`,
    description: `Benchmark prompt ${i}: asks for a summary of the topic`,
    withTone: i % 2 === 1,
  }));
}

/** The static resource every `resources/read` cell reads. */
export const READ_RESOURCE: BenchResourceSpec = benchResources()[0];

/** What a prompt's `get` returns: one user text. */
export const promptText = (name: string, input: { topic: string; tone?: string }) =>
  `${name}: summarise ${input.topic}${input.tone ? ` in a ${input.tone} tone` : ''}.`;

/** What a template's `read` returns: a small JSON record. */
export const recordText = (kind: string, id: string) => JSON.stringify({ kind, id });
