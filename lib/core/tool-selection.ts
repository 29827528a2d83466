import { compiledTool } from './compiled-tools.js';
import type { ToolInvoker } from './invoker.js';
import { unknownToolMessage } from './naming.js';
import type { CompiledTool } from './runner.js';
import type { ToolTransport } from './types.js';

/**
 * Which of a transport's tools an adapter hands out.
 *
 * @example
 * createAgentTools(invoker, { include: ['billing_get_invoice', 'billing_list_invoices'] });
 */
export interface ToolSelection {
  /** Only these names, when given. Every name must exist on the transport. */
  include?: readonly string[];
  /** Not these names. Every name must exist on the transport. */
  exclude?: readonly string[];
}

/**
 * The compiled tools exposed on a transport, in declaration order, narrowed by `include` and
 * `exclude`. A name in either list that the transport does not expose is refused, naming the
 * closest ones: a typo must not silently hand an agent fewer (or more) tools than intended.
 *
 * @example
 * selectTools(invoker, 'AGENT', { exclude: ['billing_void_invoice'] }, 'createAgentTools');
 */
export function selectTools(
  invoker: ToolInvoker,
  transport: ToolTransport,
  selection: ToolSelection = {},
  caller = 'selectTools',
): CompiledTool[] {
  const names = invoker.names(transport);
  for (const key of ['include', 'exclude'] as const) {
    for (const name of selection[key] ?? []) {
      if (!names.includes(name)) {
        throw new Error(
          `${caller}({ ${key} }) names a tool not exposed on ${transport}: ` +
            unknownToolMessage(name, names),
        );
      }
    }
  }
  const included = selection.include && new Set(selection.include);
  const excluded = new Set(selection.exclude ?? []);
  return invoker
    .manifest(transport)
    .filter(({ name }) => (!included || included.has(name)) && !excluded.has(name))
    .map(({ name }) => compiledTool(invoker, name, transport)!);
}
