import { HttpException } from '@nestjs/common';

/** A 429 or 503 that tells the client when to come back: the error filter sends `Retry-After`. */
export class RetryAfterException extends HttpException {
  constructor(
    status: 429 | 503,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super({ error: { code, message, details: { retryAfterSeconds } } }, status);
    this.message = message;
  }
}
