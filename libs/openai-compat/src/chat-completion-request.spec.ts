import {
  chatCompletionRequestSchema,
  requestedMaxTokens,
  stopSequences,
  wantsUsageChunk,
  type ChatCompletionRequest,
} from './chat-completion-request';

const minimal = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function parse(body: unknown): ChatCompletionRequest {
  return chatCompletionRequestSchema.parse(body);
}

describe('chatCompletionRequestSchema', () => {
  it('accepts a minimal request and every supported sampling field', () => {
    const body = {
      ...minimal,
      messages: [
        { role: 'system', content: 'be kind' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16,
      temperature: 0.7,
      top_p: 0.9,
      stop: ['\n\n', 'END'],
      n: 1,
      seed: 42,
    };
    expect(parse(body)).toEqual(body);
  });

  it('passes unknown fields through, as vLLM does', () => {
    const parsed = parse({ ...minimal, repetition_penalty: 1.1, chat_template_kwargs: { x: 1 } });
    expect(parsed).toMatchObject({ repetition_penalty: 1.1, chat_template_kwargs: { x: 1 } });
  });

  it.each([
    ['missing model', { messages: minimal.messages }],
    ['empty messages', { model: 'm', messages: [] }],
    ['unknown role', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }],
    ['non-string content', { model: 'm', messages: [{ role: 'user', content: 3 }] }],
    ['max_tokens 0', { ...minimal, max_tokens: 0 }],
    ['fractional max_tokens', { ...minimal, max_tokens: 1.5 }],
    ['negative temperature', { ...minimal, temperature: -1 }],
    ['top_p 0', { ...minimal, top_p: 0 }],
    ['n > 1', { ...minimal, n: 2 }],
    ['stop of numbers', { ...minimal, stop: [1] }],
    ['stream_options without stream', { ...minimal, stream_options: { include_usage: true } }],
  ])('rejects %s', (_name, body) => {
    expect(chatCompletionRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('request helpers', () => {
  it('prefers max_completion_tokens over max_tokens', () => {
    expect(requestedMaxTokens(parse({ ...minimal, max_tokens: 5, max_completion_tokens: 7 }))).toBe(7);
    expect(requestedMaxTokens(parse({ ...minimal, max_tokens: 5 }))).toBe(5);
    expect(requestedMaxTokens(parse(minimal))).toBeUndefined();
  });

  it('normalises stop to a list without empty strings', () => {
    expect(stopSequences(parse({ ...minimal, stop: 'END' }))).toEqual(['END']);
    expect(stopSequences(parse({ ...minimal, stop: ['a', ''] }))).toEqual(['a']);
    expect(stopSequences(parse(minimal))).toEqual([]);
  });

  it('wants a usage chunk only for streams that asked for one', () => {
    expect(
      wantsUsageChunk(parse({ ...minimal, stream: true, stream_options: { include_usage: true } })),
    ).toBe(true);
    expect(wantsUsageChunk(parse({ ...minimal, stream: true, stream_options: {} }))).toBe(true);
    expect(
      wantsUsageChunk(parse({ ...minimal, stream: true, stream_options: { include_usage: false } })),
    ).toBe(false);
    expect(wantsUsageChunk(parse({ ...minimal, stream: true }))).toBe(false);
    expect(wantsUsageChunk(parse(minimal))).toBe(false);
  });
});
