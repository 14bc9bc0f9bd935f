import { CardImportError } from '@echoloop/character-cards';
import {
  BadRequestException,
  HttpException,
  PayloadTooLargeException,
  UnprocessableEntityException,
} from '@nestjs/common';

/** A card that cannot be imported gets a 4xx naming the problem: 413 too large, 422 not valid, 400 not readable. */
export function cardErrorToHttp(error: unknown): unknown {
  if (!(error instanceof CardImportError)) return error;
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.issues.length > 0 && { details: { issues: error.issues } }),
    },
  };
  switch (error.code) {
    case 'too_large':
      return new PayloadTooLargeException(body);
    case 'invalid_card':
    case 'unsupported_spec':
      return new UnprocessableEntityException(body);
    default:
      return new BadRequestException(body);
  }
}

export function rethrowAsHttp(error: unknown): never {
  const mapped = cardErrorToHttp(error);
  throw mapped instanceof HttpException ? mapped : error;
}
