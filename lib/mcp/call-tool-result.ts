import type { CallToolResult } from '@modelcontextprotocol/server';
import { ToolError } from '../core/errors.js';
import { presentationOf } from '../core/presentation.js';
import { toErrorEnvelope, toFailure, type ToolResult } from '../core/result.js';
import type { McpPresentation, ToolSpec } from '../core/runtime-tool.js';

/** JSON text of a value; a cycle or a bigint never turns a success into a failure. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    const ancestors: unknown[] = [];
    return JSON.stringify(value, function (this: unknown, _key, child: unknown) {
      if (typeof child === 'bigint') return child.toString();
      if (typeof child !== 'object' || child === null) return child;
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(child)) return '[circular]';
      ancestors.push(child);
      return child;
    });
  }
}

/**
 * The one mapping of a `ToolResult` to an MCP `CallToolResult`. A success carries its text (a
 * string as it is when the tool has no output schema, anything else as JSON) (or the content its `present.mcp` made, inside the call: `invoke(..., { present: 'mcp' })`) and, when the tool has an output schema,
 * `structuredContent`; a failure is `isError` with the JSON envelope
 * `{ error, message, retryable, details?, hint? }`.
 */
export function toCallToolResult(result: ToolResult, spec: ToolSpec): CallToolResult {
  if (!result.ok) {
    return {
      content: [{ type: 'text', text: JSON.stringify(toErrorEnvelope(result.error)) }],
      isError: true,
    };
  }
  const { data } = result;
  const presented = presentationOf(result) as McpPresentation | undefined;
  const content: CallToolResult['content'] = presented
    ? (presented.content as CallToolResult['content'])
    : data === undefined
      ? []
      : [{ type: 'text', text: textOf(data, spec) }];
  return {
    ...(presented?._meta !== undefined && { _meta: presented._meta }),
    content,
    ...(spec.output !== undefined && { structuredContent: data as Record<string, unknown> }),
  };
}

/**
 * The text of a result: a string as it is when the tool declares no output schema (a tool that
 * answers text answers text), anything else as JSON.
 */
function textOf(data: unknown, spec: ToolSpec): string {
  return typeof data === 'string' && spec.output === undefined ? data : jsonText(data);
}

/** The `isError` result of a call whose outcome could not be presented or written. */
export function internalErrorResult(): CallToolResult {
  const error = toFailure(
    new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error' }),
  );
  return {
    content: [{ type: 'text', text: JSON.stringify(toErrorEnvelope(error)) }],
    isError: true,
  };
}
