import { report } from './call-sinks.js';
import { isProgrammingError, ToolError } from './errors.js';
import { Refusal } from './handler-wait.js';
import type { ToolCallEvent, ToolLogger } from './hooks.js';
import { toFailure, type ToolResult } from './result.js';
import type { Run } from './run.js';
import type { CompiledTool } from './runner.js';

/** How a call ended: its result, and the value a guard or the handler threw, if any. */
export interface Outcome {
  readonly result: ToolResult;
  readonly thrown?: { readonly value: unknown };
}

/**
 * The output did not match its schema: the client learns nothing, hooks get the schema's error
 * (a `ZodError`, or a `SchemaValidationError` for another library).
 */
export class OutputMismatch {
  constructor(
    readonly error: { readonly issues: readonly unknown[] },
    readonly output: unknown,
  ) {}
}

/** The refusal of a call nested deeper than the invoker allows. */
export function recursionLimit(name: string, depth: number, maxDepth: number): ToolError {
  return new ToolError('RECURSION_LIMIT', {
    message: `Tool "${name}" was called at depth ${depth}, beyond the limit of ${maxDepth}.`,
  });
}

/** The refusal of a call a guard did not allow. */
export function guardRefusal(name: string): ToolError {
  return new ToolError('FORBIDDEN', { message: `The call to "${name}" was refused by a guard.` });
}

/** The refusal of a call whose `beforeToolCall` hook threw. */
export function hookRefusal(run: Run, error: unknown): Refusal {
  const refusal = run.normalize(error);
  // A refusal is deliberate; anything scrubbed to an internal error is a bug worth a log line.
  if (isUnexpected(error, refusal)) run.unexpected(error, ' in a beforeToolCall hook');
  return new Refusal(refusal);
}

/**
 * Whether a handler returned an MCP `CallToolResult` (`{ content: [{ type, … }] }`) instead of
 * its data, as handlers written for other MCP libraries do.
 */
function isMcpResultShape(value: unknown): boolean {
  const content = (value as { content?: unknown } | null)?.content;
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((block) => typeof (block as { type?: unknown } | null)?.type === 'string')
  );
}

const MCP_RESULT_FIX =
  'toolwright builds the MCP result (content and structuredContent) from the data a handler ' +
  'returns: return the data itself, and to choose the content blocks a model reads, declare an ' +
  'output schema and a present.mcp presenter';

// Tools already warned about returning an MCP result: the warning is given once per tool.
const warnedMcpResult = new WeakSet<CompiledTool>();

/** Warns, once per tool, that a tool without an output schema returned an MCP result. */
export function warnOnMcpResult(tool: CompiledTool, data: unknown, logger: ToolLogger): void {
  if (!isMcpResultShape(data) || warnedMcpResult.has(tool)) return;
  warnedMcpResult.add(tool);
  logger.warn?.(
    `[toolwright] Tool "${tool.spec.name}" returned an MCP result ({ content: [...] }), which is ` +
      `sent as its data: ${MCP_RESULT_FIX}.`,
  );
}

const INTERNAL = () => new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' });

/**
 * Whether a thrown value is a bug rather than an answer: no mapper made it a `ToolError`, or one
 * made it a 500, or it is a programming error (an unknown name in a nested call).
 */
function isUnexpected(thrown: unknown, normalized: ToolError): boolean {
  return (
    normalized.code === 'INTERNAL_SERVER_ERROR' &&
    (!ToolError.is(thrown) || isProgrammingError(thrown))
  );
}

/**
 * The outcome of a value thrown out of the pipeline. It never throws, whatever was thrown. A
 * failure the caller sees as an internal error is logged (`logUnexpected`).
 */
export function failure(run: Run, error: unknown): Outcome {
  try {
    if (error instanceof Refusal) return { result: { ok: false, error: toFailure(error.error) } };
    if (error instanceof OutputMismatch) {
      const fix = isMcpResultShape(error.output)
        ? ` (it returned an MCP result: ${MCP_RESULT_FIX})`
        : '';
      run.unexpected(error.error, `: its output does not match its output schema${fix}`);
      return {
        result: { ok: false, error: toFailure(INTERNAL()) },
        thrown: { value: error.error },
      };
    }
    const normalized = run.normalize(error);
    if (isUnexpected(error, normalized)) run.unexpected(error);
    return { result: { ok: false, error: toFailure(normalized) }, thrown: { value: error } };
  } catch (lookFailure) {
    // A thrown value that throws when looked at (a hostile proxy) is still an internal error.
    report(run.settings.logger, 'error normalisation', run.name, lookFailure);
    return { result: { ok: false, error: toFailure(INTERNAL()) }, thrown: { value: error } };
  }
}

/** The event `onCallFinished` receives for a finished call. */
export function callEvent(run: Run, result: ToolResult, durationMs: number): ToolCallEvent {
  const { call } = run;
  return {
    name: run.name,
    kind: call.kind,
    ...(call.uri !== undefined && { uri: call.uri }),
    identity: run.tool.spec.identity,
    transport: call.transport,
    source: call.source,
    ok: result.ok,
    ...(!result.ok && { errorCode: result.error.code }),
    durationMs,
    callId: call.id,
    ...(call.parentId !== undefined && { parentId: call.parentId }),
    depth: call.depth,
  };
}
