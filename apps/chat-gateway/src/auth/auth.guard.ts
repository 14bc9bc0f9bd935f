import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  HttpException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Role } from '@echoloop/persistence';
import type { Request } from 'express';
import { ApiKeysService, IS_PUBLIC, PERSONAL_KEY_PREFIX, RetryAfterException } from '@echoloop/platform';
import { PERSONAL_KEYS, REQUIRED_ROLES } from './auth.decorators';
import type { Principal } from './principal';
import { SessionStates } from './session-states';

export function hasRole(principal: Principal, required: readonly Role[] | undefined): boolean {
  if (!required?.length) return true;
  return principal.roles.includes('admin') || required.some((role) => principal.roles.includes(role));
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

/** Global guard: authenticated unless @Public(), then @Roles() checked. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionStates,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const request = context.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const principal = await this.authenticate(request, targets);
    if (!principal) {
      throw new UnauthorizedException({
        error: { code: 'unauthorized', message: 'A valid access token is required' },
      });
    }
    const required = this.reflector.getAllAndOverride<Role[]>(REQUIRED_ROLES, targets);
    // Services act on the routes that name a role; user-owned data (conversations, /me) needs a user.
    if (principal.kind === 'service' && !required?.length) {
      throw new ForbiddenException({
        error: { code: 'forbidden', message: 'This route is for users, not API keys' },
      });
    }
    if (!hasRole(principal, required)) {
      throw new ForbiddenException({
        error: { code: 'forbidden', message: 'Your role does not allow this' },
      });
    }
    request.principal = principal;
    return true;
  }

  /**
   * A user's bearer token (checked against the account and session as they are now), or a service's `x-api-key`: the platform's API keys, scoped to this service and the
   * route's roles (401/403 with their own codes; a key passes the checks below by construction).
   */
  private async authenticate(
    request: Request,
    targets: Parameters<Reflector['getAllAndOverride']>[1],
  ): Promise<Principal | undefined> {
    const apiKey = request.headers['x-api-key'];
    if (apiKey !== undefined) {
      return this.apiKeys.authorize(
        apiKey,
        this.reflector.getAllAndOverride<Role[]>(REQUIRED_ROLES, targets),
      );
    }
    const token = bearerToken(request.headers.authorization);
    if (!token) return undefined;
    if (token.startsWith(PERSONAL_KEY_PREFIX)) return this.personalKey(token, targets);
    try {
      return await this.sessions.authenticate(token);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** A user's personal key: only on the routes that take one, as its owner with a user's role and nothing more. */
  private async personalKey(
    token: string,
    targets: Parameters<Reflector['getAllAndOverride']>[1],
  ): Promise<Principal> {
    if (!this.reflector.getAllAndOverride<boolean>(PERSONAL_KEYS, targets)) {
      throw new ForbiddenException({
        error: {
          code: 'api_key_route_not_allowed',
          message: 'A personal key works on the OpenAI-compatible chat routes and reply feedback only',
        },
      });
    }
    const key = await this.apiKeys.authorizePersonal(token).catch((error: unknown) => {
      if (error instanceof HttpException) throw error;
      throw unavailable(error);
    });
    return {
      userId: key.userId,
      roles: ['user'],
      kind: 'user',
      personalKey: { id: key.keyId, name: key.keyName, personaGuidance: key.personaGuidance },
    };
  }
}

/** The account could not be read (the database is away): try again, not "sign in again". */
function unavailable(cause: unknown): RetryAfterException {
  return Object.assign(
    new RetryAfterException(503, 'unavailable', 'The service is briefly unavailable; try again', 2),
    { cause },
  );
}
