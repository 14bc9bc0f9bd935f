import { buildChatCompletion } from './chat-completion';
import { buildContentChunk, buildRoleChunk, buildUsageChunk } from './chat-completion-chunk';
import { newCompletionIdentity } from './completion-identity';
import { buildUsage, SYSTEM_FINGERPRINT } from './usage';

const identity = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'base' };
const header = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'base' };

describe('completion identity', () => {
  it('makes a vLLM-style id and a unix-seconds timestamp', () => {
    const made = newCompletionIdentity('base', new Date('2025-01-01T00:00:01.900Z'));
    expect(made.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(made.created).toBe(1_735_689_601);
    expect(made.model).toBe('base');
  });
});

describe('stream chunk builders', () => {
  it('opens with the assistant role and empty content', () => {
    expect(buildRoleChunk(identity)).toEqual({
      ...header,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      prompt_token_ids: null,
      prompt_text: null,
    });
  });

  it('carries content deltas without a finish reason', () => {
    expect(buildContentChunk(identity, 'Hel')).toEqual({
      ...header,
      choices: [
        { index: 0, delta: { content: 'Hel' }, logprobs: null, finish_reason: null, token_ids: null },
      ],
    });
  });

  it('puts finish_reason and stop_reason on the last content chunk', () => {
    expect(buildContentChunk(identity, 'lo', { reason: 'stop', stopReason: 'END' }).choices[0]).toEqual({
      index: 0,
      delta: { content: 'lo' },
      logprobs: null,
      finish_reason: 'stop',
      stop_reason: 'END',
      token_ids: null,
    });
    expect(buildContentChunk(identity, '', { reason: 'length' }).choices[0]).toMatchObject({
      finish_reason: 'length',
      stop_reason: null,
    });
  });

  it('ends with a usage-only chunk that has no choices', () => {
    expect(buildUsageChunk(identity, buildUsage(12, 5))).toEqual({
      ...header,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      system_fingerprint: SYSTEM_FINGERPRINT,
    });
  });
});

describe('buildChatCompletion', () => {
  it('builds the non-streaming response', () => {
    expect(buildChatCompletion(identity, 'Hello', { reason: 'length' }, buildUsage(3, 1))).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'base',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello',
            refusal: null,
            annotations: null,
            audio: null,
            function_call: null,
            reasoning: null,
          },
          logprobs: null,
          finish_reason: 'length',
          stop_reason: null,
          token_ids: null,
          routed_experts: null,
        },
      ],
      usage: {
        prompt_tokens: 3,
        completion_tokens: 1,
        total_tokens: 4,
        prompt_tokens_details: null,
        completion_tokens_details: null,
      },
      service_tier: null,
      system_fingerprint: SYSTEM_FINGERPRINT,
      prompt_logprobs: null,
      prompt_token_ids: null,
      prompt_text: null,
      kv_transfer_params: null,
      ec_transfer_params: null,
      metrics: null,
    });
  });
});
