import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Response } from 'express';
import { errorSerializer } from '../logging/log-serializers';
import { ERROR_CODES as CODES, toClientError } from './client-errors';
import { RetryAfterException } from './retry-after.exception';

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** Every HTTP error leaves as `{ error: { code, message, details? } }`; 5xx details are logged, never sent. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorFilter');

  catch(raised: unknown, host: ArgumentsHost): void {
    // What the framework refused before a handler ran (body parsing) is the client's 4xx, never a 500.
    const exception = toClientError(raised) ?? raised;
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof RetryAfterException)
      res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    res.status(this.statusOf(exception)).json(this.bodyOf(exception));
  }

  private statusOf(exception: unknown): number {
    return exception instanceof HttpException ? exception.getStatus() : HttpStatus.INTERNAL_SERVER_ERROR;
  }

  private bodyOf(exception: unknown): ErrorBody {
    if (!(exception instanceof HttpException) || exception.getStatus() >= 500) {
      if (!(exception instanceof HttpException)) this.logger.error(describeUnexpected(exception));
      const status = this.statusOf(exception);
      return { error: { code: CODES[status] ?? 'internal', message: 'Internal error' } };
    }
    const status = exception.getStatus();
    const response = exception.getResponse();
    if (typeof response === 'object' && response !== null && 'error' in response) {
      const { error } = response as Partial<ErrorBody>;
      if (error && typeof error === 'object' && 'code' in error) return { error };
    }
    const message =
      typeof response === 'string'
        ? response
        : ((response as { message?: unknown }).message ?? exception.message);
    return {
      error: {
        code: CODES[status] ?? 'error',
        message: Array.isArray(message) ? message.join('; ') : String(message),
      },
    };
  }
}

/**
 * What an unexpected error may show in a log: type, message, stack and codes. Never the whole object: a database
 * error carries the query's parameters (password hashes, message text).
 */
function describeUnexpected(error: unknown): Record<string, unknown> {
  return { err: errorSerializer(error) };
}
