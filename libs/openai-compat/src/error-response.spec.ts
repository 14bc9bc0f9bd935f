import { chatCompletionRequestSchema } from './chat-completion-request';
import { contextLengthError } from './context-length';
import { buildErrorResponse, openAiErrorBodySchema, parseErrorResponse } from './error-response';
import { invalidJsonErrorResponse, validationErrorResponse } from './validation-error';

describe('error bodies', () => {
  it('nests the error like vLLM >= 0.10.1, with the status as code', () => {
    expect(
      buildErrorResponse({ status: 404, message: 'The model `x` does not exist.', param: 'model' }),
    ).toEqual({
      error: { message: 'The model `x` does not exist.', type: 'NotFoundError', param: 'model', code: 404 },
    });
    expect(buildErrorResponse({ status: 400, message: 'bad' }).error.type).toBe('BadRequestError');
    expect(buildErrorResponse({ status: 503, message: 'down' }).error.type).toBe('InternalServerError');
  });

  it('parses both the current and the legacy flat shape', () => {
    const current = buildErrorResponse({ status: 400, message: 'bad' });
    expect(parseErrorResponse(current)).toEqual(current.error);
    expect(
      parseErrorResponse({
        object: 'error',
        message: 'old',
        type: 'BadRequestError',
        param: null,
        code: 400,
      }),
    ).toEqual({ message: 'old', type: 'BadRequestError', param: null, code: 400 });
    expect(parseErrorResponse({ detail: 'Not Found' })).toBeUndefined();
  });

  it('describes schema failures as a 400 naming the offending field', () => {
    const result = chatCompletionRequestSchema.safeParse({
      model: 'm',
      messages: [{ role: 'bot', content: '' }],
    });
    if (result.success) throw new Error('expected a validation failure');
    const body = validationErrorResponse(result.error);
    expect(openAiErrorBodySchema.parse(body)).toEqual(body);
    expect(body.error).toMatchObject({ type: 'Bad Request', code: 400, param: 'body.messages.0.role' });
    expect(body.error.message).toMatch(/^1 validation error:\n {2}body\.messages\.0\.role: /);
  });

  it('describes unparseable JSON as a 400', () => {
    expect(invalidJsonErrorResponse('Unexpected token').error).toMatchObject({ code: 400, param: 'body' });
  });
});

describe('contextLengthError', () => {
  it('accepts a request that fits', () => {
    expect(contextLengthError(10, 20, 30)).toBeUndefined();
    expect(contextLengthError(10, undefined, 30)).toBeUndefined();
  });

  it('refuses a prompt that fills the window', () => {
    expect(contextLengthError(30, undefined, 30)?.error).toMatchObject({ code: 400, param: 'messages' });
  });

  it('refuses max_tokens beyond the room left', () => {
    const body = contextLengthError(10, 21, 30);
    expect(body?.error).toMatchObject({ code: 400, param: 'max_tokens' });
    expect(body?.error.message).toContain('(21 > 30 - 10)');
  });
});
