import { ApiKeysService, RetryAfterException } from '@echoloop/platform';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { AuthGuard } from './auth.guard';
import { SessionStates } from './session-states';

const httpContext = (authorization?: string) =>
  ({
    getType: () => 'http',
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => ({ headers: { ...(authorization && { authorization }) } }) }),
  }) as unknown as ExecutionContext;

async function guardWith(authenticate: () => Promise<unknown>) {
  const module = await Test.createTestingModule({
    providers: [
      AuthGuard,
      { provide: Reflector, useValue: { getAllAndOverride: () => undefined } },
      { provide: SessionStates, useValue: { authenticate } },
      { provide: ApiKeysService, useValue: {} },
    ],
  }).compile();
  return module.get(AuthGuard);
}

describe('AuthGuard', () => {
  it('lets a user whose session is live through, with the current roles', async () => {
    const guard = await guardWith(async () => ({
      userId: 'u',
      roles: ['user'],
      kind: 'user',
      sessionId: 's',
    }));
    await expect(guard.canActivate(httpContext('Bearer token'))).resolves.toBe(true);
  });

  it('refuses a missing or ended session with a 401', async () => {
    const guard = await guardWith(async () => undefined);
    await expect(guard.canActivate(httpContext('Bearer token'))).rejects.toMatchObject({ status: 401 });
    await expect(guard.canActivate(httpContext())).rejects.toMatchObject({ status: 401 });
  });

  it('answers 503 with Retry-After, not 401 or 500, while the account cannot be read', async () => {
    const guard = await guardWith(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    const refused = guard.canActivate(httpContext('Bearer token'));
    await expect(refused).rejects.toBeInstanceOf(RetryAfterException);
    await expect(refused).rejects.toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 2 });
  });
});
