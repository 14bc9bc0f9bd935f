import { BadRequestException, HttpException } from '@nestjs/common';
import { toClientError } from './client-errors';

/** What body-parser and raw-body throw (http-errors): the fields are the contract, the message is not. */
const frameworkError = (fields: Record<string, unknown>) =>
  Object.assign(new Error('anything at all'), { expose: true, ...fields });

const publicOf = (error: unknown) => {
  const mapped = toClientError(error);
  return mapped && { status: mapped.getStatus(), body: mapped.getResponse() };
};

describe('toClientError', () => {
  it.each([
    [{ status: 413, type: 'entity.too.large', limit: 1024 }, 413, 'payload_too_large'],
    [{ status: 415, type: 'charset.unsupported' }, 415, 'unsupported_charset'],
    [{ status: 415, type: 'encoding.unsupported' }, 415, 'unsupported_encoding'],
    [{ status: 400, type: 'entity.parse.failed' }, 400, 'malformed_body'],
    [{ status: 400, type: 'request.aborted' }, 400, 'request_aborted'],
    [{ status: 400, code: 'Z_BUF_ERROR' }, 400, 'malformed_body'],
    [{ statusCode: 405 }, 405, 'method_not_allowed'],
    [{ status: 418 }, 418, 'bad_request'],
  ])('maps %j to %i %s in the error shape', (fields, status, code) => {
    expect(publicOf(frameworkError(fields))).toEqual({
      status,
      body: { error: expect.objectContaining({ code, message: expect.any(String) }) },
    });
  });

  it('tells the limit of a body that is too large, never the body', () => {
    const body = publicOf(frameworkError({ status: 413, type: 'entity.too.large', limit: 1024 }))?.body;
    expect(body).toEqual({ error: expect.objectContaining({ details: { limitBytes: 1024 } }) });
  });

  it('does not quote the message of a parse error, which holds a piece of the body', () => {
    const error = frameworkError({ status: 400, type: 'entity.parse.failed' });
    error.message = 'Unexpected token s, "secret" is not valid JSON';
    expect(JSON.stringify(publicOf(error))).not.toContain('secret');
  });

  it.each([
    ['a server fault', frameworkError({ status: 500, expose: false })],
    ['a 4xx not meant for the client', frameworkError({ status: 404, expose: false })],
    ['a plain error', new Error('boom')],
    ['an HttpException (already public)', new BadRequestException()],
    ['not an object', 'boom'],
  ])('leaves %s alone', (_what, error) => {
    expect(toClientError(error)).toBeUndefined();
  });

  it('builds HttpExceptions', () => {
    expect(toClientError(frameworkError({ status: 400 }))).toBeInstanceOf(HttpException);
  });
});
