import { catalogInvoker } from './catalog-invoker.js';
import type { ToolInvoker } from './invoker.js';
import { CORE_MESSAGES } from './core.messages.js';
import { ToolsConfigurationError } from './errors.js';
import { unknownToolMessage } from './naming.js';
import type { CompiledTool } from './runner.js';
import type { ToolTransport } from './types.js';

/** Which of a transport's tools an adapter hands out. */
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
 */
export function selectTools(
  invoker: ToolInvoker,
  transport: ToolTransport,
  selection: ToolSelection = {},
  caller = 'selectTools',
): CompiledTool[] {
  const { catalog } = catalogInvoker(invoker);
  const names = catalog.names(transport);
  for (const key of ['include', 'exclude'] as const) {
    for (const name of selection[key] ?? []) {
      if (!names.includes(name)) {
        throw new ToolsConfigurationError(
          CORE_MESSAGES.notExposed(caller, key, transport, unknownToolMessage(name, names)),
        );
      }
    }
  }
  const included = selection.include && new Set(selection.include);
  const excluded = new Set(selection.exclude ?? []);
  return catalog
    .tools(transport)
    .filter(({ spec: { name } }) => (!included || included.has(name)) && !excluded.has(name));
}
