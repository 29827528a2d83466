import {
  toErrorEnvelope,
  toToolError,
  type ToolErrorEnvelope,
  type ToolFailure,
} from '../core/result.js';

/**
 * What an AI SDK tool of {@link createAgentTools} throws when its call fails, so the SDK records
 * a `tool-error` and the loop goes on. The model reads exactly the JSON envelope
 * `{ error, message, retryable, details?, hint? }`: it is the message, and `toString()` returns
 * it without the `AgentToolError:` prefix the SDK would otherwise add. The `ToolError` behind
 * the failure stays in-process as `cause`.
 *
 * @example
 * const failed = result.steps.flatMap((s) => s.content).find((part) => part.type === 'tool-error');
 * if (failed?.error instanceof AgentToolError) console.warn(failed.error.envelope.error); // 'CONFLICT'
 */
export class AgentToolError extends Error {
  override readonly name = 'AgentToolError';
  /** The envelope the model reads. */
  readonly envelope: ToolErrorEnvelope;
  /** The failure of the call, as `ToolResult` reports it. */
  readonly failure: ToolFailure;

  constructor(failure: ToolFailure) {
    const envelope = toErrorEnvelope(failure);
    super(JSON.stringify(envelope), { cause: toToolError(failure) });
    this.envelope = envelope;
    this.failure = failure;
  }

  /** The JSON envelope alone: the AI SDK shows a model `String(error)`. */
  override toString(): string {
    return this.message;
  }
}
