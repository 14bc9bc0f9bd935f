import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal';

/**
 * Accounts are managed by signed-in admins only: an API key, whatever its roles, is refused, so every change has
 * a person behind it in the audit trail. Runs after the global AuthGuard has set the principal.
 */
@Injectable()
export class UserPrincipalGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<{ principal?: Principal }>().principal;
    if (principal?.kind === 'user') return true;
    throw new ForbiddenException({
      error: { code: 'forbidden', message: 'Accounts are managed by signed-in admins, not API keys' },
    });
  }
}
