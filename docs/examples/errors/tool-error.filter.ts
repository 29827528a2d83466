import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { toErrorEnvelope, toFailure, ToolError } from 'toolwright';

/**
 * For REST routes that use `invokeOrThrow`: a ToolError is not an HttpException, so without a
 * filter Nest answers it with a 500. This answers with the error's status and public envelope.
 */
@Catch(ToolError)
export class ToolErrorFilter implements ExceptionFilter {
  catch(error: ToolError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse();
    // Express and Fastify responses both have status().send().
    response.status(error.status).send(toErrorEnvelope(toFailure(error)));
  }
}
