import { type CallHandler, Controller, type ExecutionContext, Get } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { firstValueFrom, of } from 'rxjs';
import { z } from 'zod';
import { SERVICE_ENV } from '../service-env';
import { ApiDoc } from './api-doc.decorators';
import { ResponseContractInterceptor } from './response-contract.interceptor';

@Controller()
class Routes {
  @Get()
  @ApiDoc({ response: z.object({ id: z.uuid(), at: z.iso.datetime(), note: z.string().nullable() }) })
  documented() {}

  @Get()
  undocumented() {}
}

const context = (handler: keyof Routes) =>
  ({
    getType: () => 'http',
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
  }) as unknown as ExecutionContext;

const answer = (body: unknown): CallHandler => ({ handle: () => of(body) });

describe('ResponseContractInterceptor', () => {
  const warn = jest.fn();

  async function interceptor(mode: 'off' | 'log' | 'enforce') {
    const moduleRef = await Test.createTestingModule({
      providers: [
        ResponseContractInterceptor,
        Reflector,
        { provide: SERVICE_ENV, useValue: { RESPONSE_CONTRACTS: mode } },
        { provide: PinoLogger, useValue: { warn } },
      ],
    }).compile();
    return moduleRef.get(ResponseContractInterceptor);
  }

  const good = {
    id: '1d7b1c59-4e0f-4f5c-9a55-2b3f9d1c7e21',
    at: new Date('2026-11-25T03:00:00Z'),
    note: null,
  };
  // A row just saved often lacks the columns the database filled: the key is dropped from the JSON.
  const drifted = { id: good.id, at: good.at, secret: 'user text' };

  beforeEach(() => warn.mockReset());

  it('passes an answer that matches its schema once serialised (dates become strings)', async () => {
    const checked = await (await interceptor('enforce')).intercept(context('documented'), answer(good));
    await expect(firstValueFrom(checked)).resolves.toBe(good);
    expect(warn).not.toHaveBeenCalled();
  });

  it('enforced, turns a drift into a 500 naming the route and the field, never the values', async () => {
    const checked = await (await interceptor('enforce')).intercept(context('documented'), answer(drifted));
    const error = await firstValueFrom(checked).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500 });
    const message = JSON.stringify((error as { getResponse(): unknown }).getResponse());
    expect(message).toContain('Routes.documented');
    expect(message).toContain('note');
    expect(message).not.toContain('user text');
    expect(JSON.stringify(warn.mock.calls)).not.toContain('user text');
  });

  it('logged, answers as before and warns', async () => {
    const checked = await (await interceptor('log')).intercept(context('documented'), answer(drifted));
    await expect(firstValueFrom(checked)).resolves.toBe(drifted);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('leaves alone routes without a documented response, and everything when off', async () => {
    const enforce = await interceptor('enforce');
    await expect(firstValueFrom(enforce.intercept(context('undocumented'), answer(drifted)))).resolves.toBe(
      drifted,
    );
    const off = await interceptor('off');
    await expect(firstValueFrom(off.intercept(context('documented'), answer(drifted)))).resolves.toBe(
      drifted,
    );
    expect(warn).not.toHaveBeenCalled();
  });
});
