import type { ChatCompletionRequest } from '@echoloop/openai-compat';
import { jsonReply, replyByRules, replyQueue, ReplyQueueEmptyError, replyWith } from './scripted-replies';

function request(model: string, system: string, user: string): ChatCompletionRequest {
  return {
    model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: user },
    ],
  };
}

describe('scripted replies', () => {
  it('replies with a fixed text', () => {
    expect(replyWith('hi')(request('m', 's', 'u'))).toBe('hi');
  });

  it('replies from a queue, one per request, then fails loudly', () => {
    const script = replyQueue(['a', 'b']);
    expect([script(request('m', '', '')), script(request('m', '', ''))]).toEqual(['a', 'b']);
    expect(() => script(request('m', '', ''))).toThrow(ReplyQueueEmptyError);
  });

  it('matches rules on the last user message, the system prompt and the model', () => {
    const script = replyByRules(
      [
        { when: { systemIncludes: 'empathy judge', lastUserIncludes: 'sad' }, reply: { score: 0.9 } },
        { when: { systemIncludes: 'empathy judge' }, reply: { score: 0.1 } },
        { when: { model: 'ckpt-v2' }, reply: 'from the adapter' },
      ],
      'fallback',
    );
    expect(script(request('base', 'You are an empathy judge.', 'I feel sad'))).toBe(
      jsonReply({ score: 0.9 }),
    );
    expect(script(request('base', 'You are an empathy judge.', 'earlier'))).toBe('{"score":0.1}');
    expect(script(request('ckpt-v2', 'persona', 'hi'))).toBe('from the adapter');
    expect(script(request('base', 'persona', 'hi'))).toBe('fallback');
  });

  it('fails when no rule matches and there is no fallback', () => {
    expect(() => replyByRules([{ when: { model: 'x' }, reply: 'x' }])(request('y', '', ''))).toThrow(
      /no reply rule/,
    );
  });
});
