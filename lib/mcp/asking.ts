import { createHash } from 'node:crypto';
import type { ToolAnswer, ToolQuestion } from '../core/asking.js';
import { ToolError } from '../core/errors.js';

/** Options of the sealed `requestState` of multi round-trip input (the 2026-07-28 era). */
export interface McpRequestStateOptions {
  /**
   * The key that seals every `requestState` (HMAC-SHA256), at least 32 bytes: every instance of
   * a deployment must share it, so that any of them can take the next round. Without one, each
   * process makes its own, and a question can only be answered on the instance that asked it.
   */
  key?: string | Uint8Array;
  /** How long a question may wait for its answer, in seconds. Default 600. */
  ttlSeconds?: number;
}

/** The confirmation a `confirm` sends: an elicitation with nothing to fill in. */
const CONFIRM_SCHEMA = Object.freeze({ type: 'object', properties: {} });

/** What an `elicitation/create` asks for a question, on either era. */
export function elicitationParams(question: ToolQuestion): {
  message: string;
  requestedSchema: Record<string, unknown>;
} {
  return {
    message: question.message,
    requestedSchema: question.kind === 'confirm' ? CONFIRM_SCHEMA : question.requestedSchema,
  };
}

/** How a 2025-era question left unanswered for `waitMs` ends its call (HTTP and stdio alike). */
export function unansweredInTime(tool: string, waitMs: number): ToolError {
  return new ToolError('REQUEST_TIMEOUT', {
    message: `Tool "${tool}" asked the user and got no answer within ${waitMs / 1000} s.`,
    hint: 'Call the tool again when the user can answer.',
  });
}

/** A SHA-256 digest of a value's JSON: what may leave the process in place of the value. */
export function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? '')
    .digest('base64url');
}

/** The answer in a client's response to an `elicitation/create`. */
export function answerOf(question: ToolQuestion, message: Record<string, unknown>): ToolAnswer {
  const result = message.result as { action?: unknown; content?: unknown } | undefined;
  if (result === undefined) {
    const { message: text } = (message.error ?? {}) as { message?: unknown };
    throw new ToolError('USER_INPUT_UNAVAILABLE', {
      message: `Tool "${question.call.name}" asked the user, and the client answered with an error${typeof text === 'string' ? `: ${text}` : ''}.`,
    });
  }
  const { action, content } = result ?? {};
  if (action === 'accept') {
    return {
      action,
      content: typeof content === 'object' && content !== null ? (content as never) : {},
    };
  }
  if (action === 'decline' || action === 'cancel') return { action };
  throw new ToolError('BAD_REQUEST', {
    message: `The answer to a question of "${question.call.name}" must have the action accept, decline or cancel.`,
  });
}
