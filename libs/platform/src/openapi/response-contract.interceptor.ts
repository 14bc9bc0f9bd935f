import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  InternalServerErrorException,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ServiceEnv } from '@echoloop/config';
import { PinoLogger } from 'nestjs-pino';
import { map, type Observable } from 'rxjs';
import { SERVICE_ENV } from '../service-env';
import { API_DOC, type ApiDocOptions } from './api-doc.decorators';

/**
 * Keeps the OpenAPI document (and the web app's client generated from it) honest: an answer is checked, as the
 * client receives it (JSON), against the response schema its route documents. Tests enforce it, so a drift
 * fails the first test that calls the route; production may log it or skip the check.
 */
@Injectable()
export class ResponseContractInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(SERVICE_ENV) private readonly env: ServiceEnv,
    private readonly logger: PinoLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const mode = this.env.RESPONSE_CONTRACTS;
    const schema = this.reflector.get<ApiDocOptions | undefined>(API_DOC, context.getHandler())?.response;
    if (mode === 'off' || context.getType() !== 'http' || !schema) return next.handle();
    return next.handle().pipe(
      map((body: unknown) => {
        if (body === undefined) return body;
        const result = schema.safeParse(JSON.parse(JSON.stringify(body)));
        if (result.success) return body;
        const route = `${context.getClass().name}.${context.getHandler().name}`;
        // Paths and messages only: never the values, which may be user text.
        const issues = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
        this.logger.warn({ route, issues }, 'response does not match its documented schema');
        if (mode === 'enforce') {
          throw new InternalServerErrorException({
            error: { code: 'response_contract_violated', message: `${route}: ${issues.join('; ')}` },
          });
        }
        return body;
      }),
    );
  }
}
