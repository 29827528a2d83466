import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ToolError } from '../core/errors.js';
import { toErrorEnvelope, toFailure } from '../core/result.js';

/**
 * Answers a `ToolError` that reaches Nest's exception layer on an HTTP route (from
 * `invokeOrThrow`) with its status and the public envelope
 * `{ error, message, retryable, details?, hint? }`, on Express and Fastify. `ToolsModule`
 * registers it globally (see its `toolErrorFilter` option); a filter of the controller or the
 * method still comes first. Extend it, or bind your own `@Catch(ToolError)` filter, to answer
 * differently.
 *
 * Elsewhere: a WebSocket client receives the envelope as an `exception` event (with
 * `status: 'error'`, as Nest's own WebSocket filter sends); in other contexts (microservices,
 * GraphQL) the error goes on to Nest's handling for that context.
 *
 * @example
 * @Catch(ToolError)
 * export class ProblemJsonFilter extends ToolErrorFilter {
 *   override catch(error: ToolError, host: ArgumentsHost) {
 *     host.switchToHttp().getResponse().status(error.status).send({ type: error.code, title: error.message });
 *   }
 * }
 */
@Catch(ToolError)
export class ToolErrorFilter implements ExceptionFilter<ToolError> {
  catch(error: ToolError, host: ArgumentsHost): void {
    const envelope = toErrorEnvelope(toFailure(error));
    const type = host.getType();
    if (type === 'http') {
      const response = host
        .switchToHttp()
        .getResponse<{ status(code: number): { send(body: unknown): void } }>();
      response.status(error.status).send(envelope);
    } else if (type === 'ws') {
      const client = host.switchToWs().getClient<{ emit?(event: string, data: unknown): void }>();
      client.emit?.('exception', { status: 'error', ...envelope });
    }
  }
}
