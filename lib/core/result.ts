import { ToolError } from './errors.js';

/** What a failed call reports: JSON-safe, with no stack, cause or unexpected error text. */
export interface ToolFailure {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  hint?: string;
}

/**
 * The outcome of a call, on every surface.
 *
 * @example
 * const result = await invoker.invoke(
 *   'billing_get_invoice',
 *   { id: 'inv_1' },
 *   { transport: 'AGENT' },
 * );
 * if (result.ok) console.log(result.data);
 * else console.warn(result.error.code, result.error.message);
 */
export type ToolResult<T = unknown> = { ok: true; data: T } | { ok: false; error: ToolFailure };

/** The envelope a model or remote client reads for a failure. */
export interface ToolErrorEnvelope {
  error: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
  hint?: string;
}

// The ToolError a failure was made from, kept in-process so invokeOrThrow can rethrow it whole.
const origins = new WeakMap<ToolFailure, ToolError>();

/** The public form of a `ToolError`. */
export function toFailure(error: ToolError): ToolFailure {
  const failure: ToolFailure = {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
  };
  if (error.details !== undefined) failure.details = error.details;
  if (error.hint !== undefined) failure.hint = error.hint;
  origins.set(failure, error);
  return failure;
}

/**
 * The `ToolError` behind a failure: the original one when it was made in this process, else one
 * rebuilt from the failure's fields.
 */
export function toToolError(failure: ToolFailure): ToolError {
  return (
    origins.get(failure) ??
    new ToolError(failure.code, {
      message: failure.message,
      retryable: failure.retryable,
      details: failure.details,
      hint: failure.hint,
    })
  );
}

/**
 * The JSON envelope a model or MCP client reads: `{ error, message, retryable, details?, hint? }`.
 */
export function toErrorEnvelope(failure: ToolFailure): ToolErrorEnvelope {
  const { code, ...rest } = failure;
  return { error: code, ...rest };
}
