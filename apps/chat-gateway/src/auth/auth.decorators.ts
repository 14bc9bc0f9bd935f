import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Principal } from './principal';

/** The platform's, so that the gateway, the OpenAPI document and every app's API-key checks read the same roles. */
export { REQUIRED_ROLES, Roles } from '@echoloop/platform';

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ principal: Principal }>().principal,
);

export const PERSONAL_KEYS = 'echoloop:personal-keys';
/** The route also accepts a user's personal API key as its Bearer token (the OpenAI-compatible chat routes). */
export const PersonalKeys = () => SetMetadata(PERSONAL_KEYS, true);
