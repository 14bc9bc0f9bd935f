import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';

const body = (code: string, message: string, details?: unknown) => ({
  error: { code, message, ...(details !== undefined && { details }) },
});

/** The public errors of API keys: 401 when the key is no credential, 403 when it is one that may not do this. */
export const apiKeyErrors = {
  invalid: () =>
    new UnauthorizedException(body('api_key_invalid', 'A valid API key is required in x-api-key')),
  revoked: () => new UnauthorizedException(body('api_key_revoked', 'This API key was revoked')),
  expired: () => new UnauthorizedException(body('api_key_expired', 'This API key has expired')),
  rotated: () =>
    new UnauthorizedException(
      body('api_key_rotated', 'This secret was replaced by a rotation; use the new one'),
    ),
  personalKey: () =>
    new ForbiddenException(
      body(
        'api_key_personal',
        'A personal key is a Bearer token for the chat routes of OpenAI-compatible clients, not an x-api-key',
      ),
    ),
  ownerInactive: () =>
    new UnauthorizedException(
      body(
        'api_key_owner_inactive',
        "This API key's owner no longer has the account or the roles it was made with",
      ),
    ),
  tooManyPersonal: (max: number) =>
    new ConflictException(
      body('too_many_api_keys', `You hold ${max} live keys already; revoke one you no longer use`),
    ),
  wrongService: (service: string) =>
    new ForbiddenException(body('api_key_service_not_allowed', `This API key is not scoped to ${service}`)),
  userRoute: () =>
    new ForbiddenException(body('api_key_route_not_allowed', 'This route is for users, not API keys')),
  wrongRole: (required: readonly string[]) =>
    new ForbiddenException(
      body('api_key_role_not_allowed', `This route needs one of the roles: ${required.join(', ')}`),
    ),
  keysCannotMint: () =>
    new ForbiddenException(body('api_key_cannot_mint', 'API keys cannot create or rotate API keys')),
  notAdmin: () => new ForbiddenException(body('forbidden', 'Only admins create or rotate API keys')),
  noAccount: () =>
    new UnauthorizedException(body('unauthorized', 'Your account no longer exists or is disabled')),
  exceedsMinter: (missing: readonly string[]) =>
    new ForbiddenException(
      body('api_key_exceeds_minter', `A key cannot hold roles you lack: ${missing.join(', ')}`, { missing }),
    ),
  badExpiry: (message: string) =>
    new BadRequestException(
      body('validation_failed', 'Request is invalid', [{ path: 'expiresAt', message }]),
    ),
  notFound: () => new NotFoundException(body('not_found', 'API key not found')),
  changed: () =>
    new ConflictException(body('api_key_changed', 'The key was rotated or revoked meanwhile; list it again')),
};
