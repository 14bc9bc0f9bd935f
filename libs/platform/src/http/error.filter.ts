import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import { openAiErrorFor } from '@echoloop/openai-compat';
import type { Request, Response } from 'express';
import { errorSerializer } from '../logging/log-serializers';
import { ERROR_CODES as CODES, toClientError } from './client-errors';
import { RetryAfterException } from './retry-after.exception';

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** Routes on OpenAI's wire format: their clients (the OpenAI SDKs) read errors in OpenAI's shape. */
const OPENAI_WIRE = /^\/v1\/(chat\/completions|models)(\/|$)/;

/**
 * Every HTTP error leaves as `{ error: { code, message, details? } }`, or in OpenAI's shape on its routes; 5xx
 * details are logged, never sent.
 */
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
    const status = this.statusOf(exception);
    const body = this.bodyOf(exception);
    const path = host.switchToHttp().getRequest<Request | undefined>()?.path ?? '';
    res.status(status).json(OPENAI_WIRE.test(path) ? asOpenAi(status, body) : body);
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

/** A validation error names the first field it refused, as OpenAI's `param`. */
function asOpenAi(status: number, { error }: ErrorBody) {
  const first = Array.isArray(error.details)
    ? (error.details[0] as { path?: unknown } | undefined)
    : undefined;
  const param = typeof first?.path === 'string' && first.path ? first.path : null;
  return openAiErrorFor(status, error.code, error.message, param);
}

/**
 * What an unexpected error may show in a log: type, message, stack and codes. Never the whole object: a database
 * error carries the query's parameters (password hashes, message text).
 */
function describeUnexpected(error: unknown): Record<string, unknown> {
  return { err: errorSerializer(error) };
}
