import type { Role } from '@echoloop/persistence';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { IS_PUBLIC } from '../http/public.decorator';
import { ApiKeysService } from './api-keys.service';
import { REQUIRED_ROLES } from './roles.decorator';

/**
 * The global guard of service-only apps (labeller, eval-runner): every route but @Public() ones needs an API key
 * in `x-api-key`, scoped to this app and holding one of the route's @Roles(). A route without @Roles() refuses keys.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<Request & { principal?: unknown }>();
    const required = this.reflector.getAllAndOverride<Role[] | undefined>(REQUIRED_ROLES, targets);
    request.principal = await this.apiKeys.authorize(request.headers['x-api-key'], required);
    return true;
  }
}
