import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ToolError } from '../core/errors.js';
import { toErrorEnvelope, toFailure } from '../core/result.js';

/**
 * Answers a `ToolError` that reaches a REST route (from `invokeOrThrow`) with its status and
 * the public envelope `{ error, message, retryable, details?, hint? }`, on Express and Fastify.
 * Without it Nest answers any non-HTTP exception with 500.
 *
 * @example
 * @Controller('tickets')
 * @UseFilters(ToolErrorFilter)
 * export class TicketsController {
 *   @Get(':id') get(@Param('id') id: string) {
 *     return this.tools.invokeOrThrow('helpdesk_get_ticket', { id }, { transport: 'AGENT' });
 *   }
 * }
 */
@Catch(ToolError)
export class ToolErrorFilter implements ExceptionFilter<ToolError> {
  catch(error: ToolError, host: ArgumentsHost): void {
    const response = host
      .switchToHttp()
      .getResponse<{ status(code: number): { send(body: unknown): void } }>();
    response.status(error.status).send(toErrorEnvelope(toFailure(error)));
  }
}
