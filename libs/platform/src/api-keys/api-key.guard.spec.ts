import { Controller, type ExecutionContext, Get, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Public } from '../http/public.decorator';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { Roles } from './roles.decorator';

@Controller()
@Roles('experimenter')
class Routes {
  @Get()
  forExperimenters() {}

  @Get()
  @Roles('analyst')
  forAnalysts() {}

  @Get()
  @Public()
  open() {}
}

function http(handler: keyof Routes, headers: Record<string, string>) {
  const request: { headers: Record<string, string>; principal?: unknown } = { headers };
  const context = {
    getType: () => 'http',
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { context, request };
}

describe('ApiKeyGuard', () => {
  const authorize = jest.fn();
  let guard: ApiKeyGuard;

  beforeEach(async () => {
    authorize.mockReset();
    const moduleRef = await Test.createTestingModule({
      providers: [ApiKeyGuard, Reflector, { provide: ApiKeysService, useValue: { authorize } }],
    }).compile();
    guard = moduleRef.get(ApiKeyGuard);
  });

  it("passes the x-api-key header and the route's roles (the handler's over the controller's) to the key check", async () => {
    authorize.mockResolvedValue({ userId: 'k', roles: ['analyst'], kind: 'service' });
    const { context, request } = http('forAnalysts', { 'x-api-key': 'elk_secret' });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(authorize).toHaveBeenCalledWith('elk_secret', ['analyst']);
    expect(request.principal).toEqual({ userId: 'k', roles: ['analyst'], kind: 'service' });
    await guard.canActivate(http('forExperimenters', { 'x-api-key': 'elk_secret' }).context);
    expect(authorize).toHaveBeenLastCalledWith('elk_secret', ['experimenter']);
  });

  it('lets the refusal through as it is, and leaves public routes open', async () => {
    authorize.mockRejectedValue(new UnauthorizedException());
    await expect(guard.canActivate(http('forExperimenters', {}).context)).rejects.toBeInstanceOf(
      UnauthorizedException,
    );
    await expect(guard.canActivate(http('open', {}).context)).resolves.toBe(true);
    expect(authorize).toHaveBeenCalledTimes(1);
  });
});
