import { chatCompletionRequestSchema } from './chat-completion-request';
import { validationErrorResponse } from './validation-error';

const minimal = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
const schema = {
  type: 'object',
  properties: { mood: { type: 'string', enum: ['happy', 'sad'] }, score: { type: 'integer', minimum: 1 } },
  required: ['mood'],
  additionalProperties: false,
};

describe('chatCompletionRequestSchema response_format', () => {
  it.each([
    ['text', { type: 'text' }],
    ['json_object', { type: 'json_object' }],
    ['json_schema', { type: 'json_schema', json_schema: { name: 'mood', schema, strict: true } }],
    [
      'json_schema with description and null strict',
      {
        type: 'json_schema',
        json_schema: { name: 'mood', description: 'how they feel', schema, strict: null },
      },
    ],
    ['json_schema without a schema', { type: 'json_schema', json_schema: { name: 'anything' } }],
  ])('accepts %s', (_name, responseFormat) => {
    const parsed = chatCompletionRequestSchema.parse({ ...minimal, response_format: responseFormat });
    expect(parsed.response_format).toEqual(responseFormat);
  });

  it('accepts an absent or null response_format', () => {
    expect(chatCompletionRequestSchema.parse(minimal).response_format).toBeUndefined();
    expect(
      chatCompletionRequestSchema.parse({ ...minimal, response_format: null }).response_format,
    ).toBeNull();
  });

  it.each([
    ['a string', 'json'],
    ['no type', {}],
    ['an unknown type', { type: 'structural_tag' }],
    ['json_schema without json_schema', { type: 'json_schema' }],
    ['json_schema without a name', { type: 'json_schema', json_schema: { schema } }],
    ['a schema that is not an object', { type: 'json_schema', json_schema: { name: 'x', schema: [schema] } }],
    ['a non-boolean strict', { type: 'json_schema', json_schema: { name: 'x', schema, strict: 'yes' } }],
  ])('rejects %s', (_name, responseFormat) => {
    expect(
      chatCompletionRequestSchema.safeParse({ ...minimal, response_format: responseFormat }).success,
    ).toBe(false);
  });

  it('names the bad field in the vLLM-shaped 400', () => {
    const result = chatCompletionRequestSchema.safeParse({
      ...minimal,
      response_format: { type: 'json_schema', json_schema: { schema } },
    });
    if (result.success) throw new Error('expected a validation error');
    expect(validationErrorResponse(result.error).error).toMatchObject({
      code: 400,
      type: 'Bad Request',
      param: 'body.response_format.json_schema.name',
    });
  });
});
