import {
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { findUnstorableText } from './text';

/**
 * The general defence of every app: a JSON or form body, query or path parameter holding a NUL or a lone
 * surrogate anywhere (PostgreSQL can store neither), or nested past 64 levels, is a 400 `validation_failed`
 * naming where, before any handler or schema sees it. Socket events get the same walk in their own validation (`withStorableText`).
 */
@Injectable()
export class StorableInputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const error = unstorableInputError(context.switchToHttp().getRequest<Request>());
    if (error) throw error;
    return next.handle();
  }
}

/** The 400 for a request whose path parameters, query or body hold a NUL or a lone surrogate, if any. */
export function unstorableInputError(req: Pick<Request, 'params' | 'query' | 'body'>) {
  const details = [
    ...findUnstorableText(req.params).map((issue) => ({ ...issue, in: 'path' })),
    ...findUnstorableText(req.query).map((issue) => ({ ...issue, in: 'query' })),
    ...findUnstorableText(req.body).map((issue) => ({ ...issue, in: 'body' })),
  ];
  return details.length > 0 ? unstorable(details) : undefined;
}

/**
 * The same walk for content that arrives inside files (a card in a PNG or CHARX) and is parsed by the app:
 * returns the value, or throws the 400 naming where, under `root`.
 */
export function assertStorableText<T>(value: T, root: readonly (string | number)[] = []): T {
  const details = findUnstorableText(value, root);
  if (details.length > 0) throw unstorable(details);
  return value;
}

const unstorable = (details: object[]) =>
  new BadRequestException({
    error: {
      code: 'validation_failed',
      message: 'Request holds text (or nesting) that cannot be stored',
      details,
    },
  });
