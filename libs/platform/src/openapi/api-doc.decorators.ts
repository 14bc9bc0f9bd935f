import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

export const API_DOC = 'openapi:doc';
export const API_EVENT = 'openapi:event';

export interface ApiDocOptions {
  summary?: string;
  description?: string;
  /** The success response's body. */
  response?: z.ZodType;
  /** The success status when it is not Nest's default (201 for POST, 200 otherwise, or @HttpCode). */
  status?: number;
  /** The response's media type when it is not JSON (e.g. `text/event-stream`, `image/png`). */
  responseType?: string;
}

/** Optional extra for the OpenAPI document: the route is documented without it, from its pipes and metadata. */
export const ApiDoc = (options: ApiDocOptions) => SetMetadata(API_DOC, options);

export interface ApiEventOptions<T = never> {
  /** The payload's schema, or a function of the gateway instance for a schema built from configuration. */
  payload: z.ZodType | ((gateway: T) => z.ZodType);
  summary?: string;
}

/**
 * The payload schema of a socket.io event handler whose body is validated inside the handler (an event validated
 * by `@MessageBody(new ZodValidationPipe(schema))` needs no decorator).
 */
export const ApiEvent = <T = never>(options: ApiEventOptions<T>) => SetMetadata(API_EVENT, options);
