import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { toErrorEnvelope, ToolError } from 'toolwright';

/** REST answers for a failed tool call: the tool's status and its public envelope. */
@Catch(ToolError)
export class ToolErrorFilter implements ExceptionFilter {
  catch(error: ToolError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse();
    const body = toErrorEnvelope({
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: error.details,
      hint: error.hint,
    });
    // Express and Fastify responses both have status().send().
    response.status(error.status).send(body);
  }
}
