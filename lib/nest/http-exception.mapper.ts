import { HttpException } from '@nestjs/common';
import { ToolError } from '../core/errors.js';

const CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  429: 'RATE_LIMITED',
};

/**
 * Maps a Nest `HttpException` to a `ToolError`: the code from its status (other 4xx are
 * `BAD_REQUEST`, 5xx `INTERNAL_SERVER_ERROR`), keeping the public message of a 4xx only.
 *
 * @example
 * mapHttpException(new NotFoundException('No such invoice')); // ToolError NOT_FOUND "No such invoice"
 */
export function mapHttpException(error: unknown): ToolError | undefined {
  if (!(error instanceof HttpException)) return undefined;
  const status = error.getStatus();
  if (status >= 400 && status < 500) {
    return new ToolError(CODES[status] ?? 'BAD_REQUEST', { message: error.message, cause: error });
  }
  return new ToolError('INTERNAL_SERVER_ERROR', { message: 'Internal server error', cause: error });
}
