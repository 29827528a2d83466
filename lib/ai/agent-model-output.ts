import type { ToolResultPart } from 'ai';
import type { ToolLogger } from '../core/hooks.js';
import { isThenable } from '../core/maybe-async.js';
import type { ToolSpec } from '../core/runtime-tool.js';
import { parserOf } from '../core/schema-parse.js';

/** What a model reads for a tool result (the SDK does not export this type by name). */
export type ToolResultOutput = ToolResultPart['output'];

const OUTPUT_TYPES: ReadonlySet<string> = new Set([
  'text',
  'json',
  'content',
  'error-text',
  'error-json',
  'execution-denied',
]);

function isToolResultOutput(value: unknown): value is ToolResultOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    OUTPUT_TYPES.has((value as { type?: unknown }).type as string)
  );
}

/** JSON-safe form of a value (what the SDK itself sends for a tool without presenter). */
function jsonValue(value: unknown): ToolResultOutput {
  const text = JSON.stringify(value);
  return { type: 'json', value: text === undefined ? null : JSON.parse(text) };
}

/** The output as the tool's schema reads it: outputs restored from stored history are plain JSON. */
function parsedOutput(spec: ToolSpec, output: unknown): unknown {
  if (!spec.output) return output;
  try {
    const parsed = parserOf(spec.output)(output);
    // An asynchronous schema cannot parse in place: present the value as it is.
    return !isThenable(parsed) && parsed.success ? parsed.data : output;
  } catch {
    return output;
  }
}

/**
 * What the model reads for a successful call of a tool with `present.agent`: the presenter's
 * result as an AI SDK `ToolResultOutput` (a string becomes `text`, a `ToolResultOutput` is kept,
 * anything else is sent as `json`). A presenter that throws is logged and the output is sent as
 * JSON, as if there were no presenter: presentation never turns a success into a failure.
 */
export function presentToModel(
  spec: ToolSpec,
  output: unknown,
  logger: Pick<ToolLogger, 'error'>,
): ToolResultOutput {
  const present = spec.present?.agent;
  if (!present) return jsonValue(output);
  try {
    const presented = present(parsedOutput(spec, output));
    if (typeof presented === 'string') return { type: 'text', value: presented };
    return isToolResultOutput(presented) ? presented : jsonValue(presented);
  } catch (error) {
    logger.error(`[toolwright] agent presenter failed for "${spec.name}":`, error);
    return jsonValue(output);
  }
}
