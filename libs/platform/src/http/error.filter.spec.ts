import { type ArgumentsHost, BadRequestException, Logger, UnauthorizedException } from '@nestjs/common';
import { ErrorFilter } from './error.filter';

describe('ErrorFilter', () => {
  const respond = (exception: unknown, path = '/v1/conversations') => {
    const sent: { status?: number; body?: unknown } = {};
    const res = {
      headersSent: false,
      setHeader: jest.fn(),
      status(code: number) {
        sent.status = code;
        return this;
      },
      json(body: unknown) {
        sent.body = body;
      },
    };
    const host = {
      switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ path }) }),
    } as unknown as ArgumentsHost;
    new ErrorFilter().catch(exception, host);
    return sent;
  };

  it('gives a 4xx the framework raised (an http-errors error) its status in the error shape, never a 500', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      status: 413,
      expose: true,
      type: 'entity.too.large',
      limit: 10,
    });
    expect(respond(tooLarge)).toEqual({
      status: 413,
      body: { error: expect.objectContaining({ code: 'payload_too_large', details: { limitBytes: 10 } }) },
    });
    expect(respond(Object.assign(new Error('x'), { statusCode: 415, expose: true }))).toMatchObject({
      status: 415,
      body: { error: { code: 'unsupported_media_type' } },
    });
  });

  it("answers on OpenAI's routes in OpenAI's shape: type by status, the field refused as param", () => {
    const invalid = new BadRequestException({
      error: {
        code: 'validation_failed',
        message: 'Request is invalid',
        details: [{ path: 'model', message: 'x' }],
      },
    });
    expect(respond(invalid, '/v1/chat/completions')).toEqual({
      status: 400,
      body: {
        error: {
          message: 'Request is invalid',
          type: 'invalid_request_error',
          param: 'model',
          code: 'validation_failed',
        },
      },
    });
    const badKey = new UnauthorizedException({ error: { code: 'api_key_revoked', message: 'revoked' } });
    expect(respond(badKey, '/v1/models')).toMatchObject({
      status: 401,
      body: { error: { type: 'authentication_error', code: 'invalid_api_key', param: null } },
    });
    expect(respond(badKey, '/v1/modelsx')).toMatchObject({ body: { error: { code: 'api_key_revoked' } } });
  });

  it('keeps an unexpected error a 500 that says nothing', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(respond(new Error('secret detail'))).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'Internal error' } },
    });
    expect(logged).toHaveBeenCalled();
  });
});
