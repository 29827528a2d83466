import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { normalizeError, ToolError } from '../core/errors.js';
import { toErrorEnvelope, toFailure } from '../core/result.js';

/**
 * Answers a `ToolError` that reaches Nest's exception layer on an HTTP route (from
 * `invokeOrThrow`) with its status and the public envelope
 * `{ error, message, retryable, details?, hint? }`, on Express and Fastify. `ToolsModule`
 * registers it globally (see its `toolErrorFilter` option); a filter of the controller or the
 * method still comes first. Extend it, or bind your own `@Catch(ToolError)` filter, to answer
 * differently.
 *
 * A name the application's own code got wrong (`source` left at `'internal'`) is a bug, not the
 * caller's: it is answered `500` with the `INTERNAL_SERVER_ERROR` envelope, which lists no
 * names, and logged with the closest names for the developer.
 *
 * Elsewhere: a WebSocket client receives the envelope as an `exception` event (with
 * `status: 'error'`, as Nest's own WebSocket filter sends); in other contexts (microservices,
 * GraphQL) the error goes on to Nest's handling for that context.
 *
 * @example
 * @Catch(ToolError)
 * export class ProblemJsonFilter extends ToolErrorFilter {
 *   override catch(error: ToolError, host: ArgumentsHost) {
 *     host
 *       .switchToHttp()
 *       .getResponse()
 *       .status(error.status)
 *       .send({ type: error.code, title: error.message });
 *   }
 * }
 */
@Catch(ToolError)
export class ToolErrorFilter implements ExceptionFilter<ToolError> {
  private static readonly logger = new Logger('ToolsModule');

  catch(error: ToolError, host: ArgumentsHost): void {
    // A programming error is told as an internal one (see `normalizeError`), and logged.
    const answered = normalizeError(error);
    if (answered !== error) {
      ToolErrorFilter.logger.error(
        `[toolwright] ${error.message} (a name the application's own code gave: answered 500)`,
        error.stack,
      );
    }
    const envelope = toErrorEnvelope(toFailure(answered));
    const type = host.getType();
    if (type === 'http') {
      const response = host
        .switchToHttp()
        .getResponse<{ status(code: number): { send(body: unknown): void } }>();
      response.status(answered.status).send(envelope);
    } else if (type === 'ws') {
      const client = host.switchToWs().getClient<{ emit?(event: string, data: unknown): void }>();
      client.emit?.('exception', { status: 'error', ...envelope });
    }
  }
}
