import { z } from 'zod';
import type { SchemaIssue } from './schema-parse.js';

/**
 * HTTP-like status for each error code the framework knows. Applications may use any other code;
 * an unknown code defaults to status 500 unless the error says otherwise.
 */
export const TOOL_ERROR_STATUS = Object.freeze({
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 400,
  RATE_LIMITED: 429,
  REQUEST_TIMEOUT: 408,
  REQUEST_ABORTED: 499,
  INTERNAL_SERVER_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
  RECURSION_LIMIT: 508,
  /** The tool asked the user something and the caller cannot ask (see `asks`). */
  USER_INPUT_UNAVAILABLE: 428,
  /**
   * The call stopped at a question its caller asks in a later turn (an MCP multi round-trip
   * call, a LangGraph interrupt): not a failure, the call runs again with the answer.
   */
  INPUT_REQUIRED: 202,
} as const);

/** A code the framework knows, or any string of the application's. */
export type ToolErrorCode = keyof typeof TOOL_ERROR_STATUS | (string & {});

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/** Whether a status means "the same call may succeed later": exactly 408, 429, 502, 503 and 504. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Options of {@link ToolError}. */
export interface ToolErrorOptions {
  /** Public message; defaults to the code. */
  message?: string;
  /** Defaults from {@link TOOL_ERROR_STATUS}, else 500. */
  status?: number;
  /** Public, JSON-safe details. */
  details?: Record<string, unknown>;
  /** A hint for the caller (a model) on what to do next. */
  hint?: string;
  /** Defaults to `status` being 408, 429, 502, 503 or 504. */
  retryable?: boolean;
  /** Kept in-process only; never sent to a caller. */
  cause?: unknown;
}

const BRAND = Symbol.for('toolwright.ToolError');

/**
 * The one error type of toolwright. Throw it from a handler, guard or hook to answer with a code
 * the caller can act on; anything else thrown is scrubbed to `INTERNAL_SERVER_ERROR`.
 *
 * @example
 * throw new ToolError('NOT_FOUND', {
 *   message: `No invoice ${input.id}`,
 *   hint: 'List invoices first',
 * });
 */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: ToolErrorCode, options: ToolErrorOptions = {}) {
    super(
      options.message ?? code,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ToolError';
    this.code = code;
    this.status =
      options.status ??
      (Object.hasOwn(TOOL_ERROR_STATUS, code)
        ? (TOOL_ERROR_STATUS as Record<string, number>)[code]
        : 500);
    this.retryable = options.retryable ?? isRetryableStatus(this.status);
    if (options.details !== undefined) this.details = options.details;
    if (options.hint !== undefined) this.hint = options.hint;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * Recognises a `ToolError` by its brand, so errors from another copy of the package count too.
   *
   * @example
   * if (ToolError.is(err) && err.code === 'NOT_FOUND') return null;
   */
  static is(value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && (value as any)[BRAND] === true;
  }
}

const PROGRAMMING_ERROR = Symbol.for('toolwright.programmingError');

/**
 * Marks a `ToolError` as a programming error of the application's own code: the `NOT_FOUND` of
 * a name it gave itself (`source: 'internal'`). It stays a `NOT_FOUND` for that code to catch;
 * whoever answers a request with it answers an internal error and lists no names (the runner,
 * when it escapes a handler; `ToolErrorFilter`, on an HTTP route).
 */
export function asProgrammingError(error: ToolError): ToolError {
  Object.defineProperty(error, PROGRAMMING_ERROR, { value: true });
  return error;
}

/**
 * Whether a value is a `ToolError` marked by {@link asProgrammingError} (by a brand, so errors
 * from another copy of the package count too).
 *
 * @example
 * if (isProgrammingError(error)) logger.error(String(error)); // the closest names, for the developer
 */
export function isProgrammingError(value: unknown): boolean {
  return ToolError.is(value) && (value as any)[PROGRAMMING_ERROR] === true;
}

/**
 * A tool definition or collection refused at composition: a bad or duplicate name, a non-object
 * input schema, a schema JSON Schema cannot express, an unknown registry `disable`/`replace` name,
 * a module class no module provides. The message names the tool, where it was declared and how to
 * fix it. Thrown by `defineRuntimeTool`, `defineToolRegistry`, `createToolInvoker`,
 * `createAgentTools`, `ToolsModule.forRoot()` and `app.init()` alike; never out of a call (those
 * answer a `ToolResult`), though a handler that asks a question its tool does not declare gets
 * one, and its call answers `INTERNAL_SERVER_ERROR`.
 *
 * @example
 * try {
 *   createToolInvoker([pingTool, otherPing]);
 * } catch (error) {
 *   if (error instanceof ToolsConfigurationError) console.error(error.message);
 *   // Duplicate tool name "health_ping": declared by runtime tool health.ping and by runtime tool
 *   // health.pong. Rename one of them, or keep only one.
 * }
 */
export class ToolsConfigurationError extends Error {
  override readonly name = 'ToolsConfigurationError';
}

/**
 * Maps a thrown value the core does not know (such as a Nest `HttpException`) to a `ToolError`.
 * Return `undefined` to leave the value to the default rules.
 */
export type ErrorMapper = (error: unknown) => ToolError | undefined;

/** At most this many issues are reported in `details.issues`. */
export const MAX_REPORTED_ISSUES = 20;
const MAX_SUMMARISED_ISSUES = 5;

/** One validation problem, as callers see it. */
export interface ValidationIssue {
  path: string;
  code: string;
  message: string;
}

function isZodError(value: unknown): value is z.core.$ZodError {
  return (
    value instanceof z.core.$ZodError ||
    (value instanceof Error && value.name === 'ZodError' && Array.isArray((value as any).issues))
  );
}

function issuePath(path: SchemaIssue['path'] = []): string {
  if (path.length === 0) return '(root)';
  return path
    .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
    .join('.');
}

/** A schema's failures: Zod's `ZodError`, or any Standard Schema's issues. */
interface SchemaFailure {
  readonly issues: readonly SchemaIssue[];
}

function toIssues(error: SchemaFailure): ValidationIssue[] {
  return error.issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({
    path: issuePath(issue.path),
    code: typeof issue.code === 'string' ? issue.code : 'invalid',
    message: issue.message,
  }));
}

function summarise(label: string, error: SchemaFailure): string {
  const lines = error.issues
    .slice(0, MAX_SUMMARISED_ISSUES)
    .map((issue) => `${issuePath(issue.path)}: ${issue.message}`);
  const more = error.issues.length - lines.length;
  return `${label}: ${lines.join('; ')}${more > 0 ? `; …and ${more} more` : ''}`;
}

/** The `target` of a validation failure: what the runner was parsing. */
export type ValidationTarget = 'input' | 'context' | 'elicitation';

/** Builds the `VALIDATION_ERROR` for a failed parse of a call's input or context. */
export function validationError(target: ValidationTarget, error: SchemaFailure): ToolError {
  return new ToolError('VALIDATION_ERROR', {
    message: summarise(`Invalid ${target}`, error),
    details: { target, issues: toIssues(error) },
    cause: error,
  });
}

/**
 * The `VALIDATION_ERROR` for a value nested deeper than `maxDepth` levels of arrays and objects,
 * which validation does not follow (see `MAX_JSON_DEPTH`).
 */
export function nestedTooDeep(target: ValidationTarget, maxDepth: number): ToolError {
  const issue = {
    path: issuePath([]),
    code: 'too_deep',
    message: `Too deep: expected at most ${maxDepth} levels of arrays and objects`,
  };
  return new ToolError('VALIDATION_ERROR', {
    message: `Invalid ${target}: ${issue.path}: ${issue.message}`,
    details: { target, issues: [issue] },
  });
}

/**
 * Turns any thrown value into the `ToolError` a caller may see by the built-in rules: a
 * `ToolError` is kept (unless it is a programming error, see {@link asProgrammingError}), a
 * `ZodError` becomes `VALIDATION_ERROR`, and anything else becomes `INTERNAL_SERVER_ERROR` with
 * the message `"Internal server error"` (its text stays in-process). The application's
 * `mapError` is consulted before, by the runner.
 */
export function normalizeError(value: unknown): ToolError {
  if (ToolError.is(value) && !isProgrammingError(value)) return value;
  if (isZodError(value)) {
    return new ToolError('VALIDATION_ERROR', {
      message: summarise('Invalid value', value),
      details: { issues: toIssues(value) },
      cause: value,
    });
  }
  return new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error', cause: value });
}
