import { Injectable, Logger } from '@nestjs/common';
import {
  mapHttpException,
  ToolError,
  type AfterToolCallEvent,
  type BeforeToolCallEvent,
  type ToolErrorEvent,
  type ToolHooks,
} from 'toolwright';

/** Hooks as an injectable class: resolved from the container, so it can inject anything. */
@Injectable()
export class AuditHooks implements ToolHooks {
  private readonly logger = new Logger('ToolAudit');
  readOnly = process.env.READ_ONLY === 'true';

  /** May refuse a call by throwing, or return a plain object to replace the arguments. */
  beforeToolCall({ name, args, call }: BeforeToolCallEvent) {
    if (this.readOnly && !name.includes('_list_') && !name.includes('_get_')) {
      throw new ToolError('SERVICE_UNAVAILABLE', { message: 'Read-only maintenance window.' });
    }
    this.logger.debug(`${call.id} ${name} from ${call.source}`);
    const input = args as Record<string, unknown>;
    return typeof input.query === 'string' ? { ...input, query: input.query.trim() } : undefined;
  }

  /** Exactly once per call that found its tool, whatever happened. */
  afterToolCall({ name, call, result, durationMs }: AfterToolCallEvent) {
    const outcome = result.ok ? 'ok' : result.error.code;
    this.logger.log(
      `${name} ${call.transport}/${call.source} ${outcome} ${durationMs.toFixed(1)}ms`,
    );
  }

  /**
   * Every value the context resolver, a guard or the handler threw, as thrown: the caller never
   * sees it. A refusal the code meant gets one quiet line. Anything else is a bug, which
   * toolwright already logs once with its stack (`logUnexpectedErrors`), wherever it was thrown
   * — a `beforeToolCall` hook included, whose throws never reach this hook — so not here.
   */
  onToolError({ name, call, error }: ToolErrorEvent) {
    const refusal = refusalOf(error);
    if (refusal) {
      this.logger.warn(`${name} (call ${call.id}) refused: ${refusal.code} ${refusal.message}`);
    }
  }
}

/** A ToolError, or a Nest 4xx (which ToolsModule maps to one): an answer, not a bug. */
function refusalOf(error: unknown): ToolError | undefined {
  if (ToolError.is(error)) return error;
  const mapped = mapHttpException(error);
  return mapped && mapped.status < 500 ? mapped : undefined;
}

/** Hooks as a plain object. */
export const slowCallWarnings: ToolHooks = {
  afterToolCall: ({ name, durationMs }) => {
    if (durationMs > 1000) console.warn(`${name} took ${Math.round(durationMs)} ms`);
  },
};
