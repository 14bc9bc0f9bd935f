import { DEFAULT_CARD_LIMITS } from '@echoloop/character-cards';
import type { z } from 'zod';
import { bodyLimits, CLIENT_HISTORY_BYTES } from './body-limits';
import { sendMessageSchema } from './chat/chat.schemas';
import { feedbackSchema } from './chat/feedback.service';
import { createCheckpointSchema } from './checkpoints/checkpoint.schemas';
import { createExperimentSchema } from './experiments/experiment.schemas';

/** 3 bytes in UTF-8, written as is by JSON.stringify: the most a character userText allows takes. */
const T = '\u20ac';

const bytesOf = (schema: z.ZodType, body: unknown) => {
  expect(schema.safeParse(body).error?.issues).toBeUndefined();
  return Buffer.byteLength(JSON.stringify(body));
};

describe('chat-gateway body limits', () => {
  it.each([4_000, 100_000])('the longest message fits (MAX_MESSAGE_CHARS=%i)', (max) => {
    const body = {
      conversationId: crypto.randomUUID(),
      content: T.repeat(max),
      clientMessageId: T.repeat(100),
    };
    expect(bytesOf(sendMessageSchema(max), body)).toBeLessThanOrEqual(
      bodyLimits({ MAX_MESSAGE_CHARS: max }).defaultBytes,
    );
  });

  it('the largest experiment, checkpoint and feedback fit the default', () => {
    const limit = bodyLimits({ MAX_MESSAGE_CHARS: 4_000 }).defaultBytes;
    const arms = Array.from({ length: 10 }, (_, i) => ({
      id: `arm-${i}`.padEnd(32, 'x'),
      checkpointId: T.repeat(200),
      weight: 1_000,
      control: i === 0,
    }));
    const experiment = {
      name: T.repeat(120),
      description: T.repeat(2_000),
      arms,
      audience: { trafficPercent: 100 },
      seed: T.repeat(64),
    };
    const url = `https://${'a'.repeat(63)}.example/${'p'.repeat(1_900)}`;
    const checkpoint = {
      id: 'c'.repeat(63),
      modelName: T.repeat(200),
      endpoints: Array.from({ length: 16 }, () => ({ baseUrl: url, apiKeyEnv: `LLM_${'K'.repeat(200)}` })),
      decoding: {
        temperature: 2,
        topP: 1,
        maxTokens: 8_192,
        stop: Array.from({ length: 8 }, () => T.repeat(200)),
      },
      contextTokens: 1_048_576,
      status: 'candidate',
    };
    const feedback = {
      thumb: 'down',
      stars: 1,
      comment: T.repeat(2_000),
      tags: Array.from({ length: 10 }, () => T.repeat(40)),
    };
    expect(bytesOf(createExperimentSchema, experiment)).toBeLessThanOrEqual(limit);
    expect(bytesOf(createCheckpointSchema, checkpoint)).toBeLessThanOrEqual(limit);
    expect(bytesOf(feedbackSchema, feedback)).toBeLessThanOrEqual(limit);
  });

  it('a card sent as JSON may be as large as a card file, a resent history as CLIENT_HISTORY_BYTES', () => {
    const routes = bodyLimits({ MAX_MESSAGE_CHARS: 4_000 }).routes ?? [];
    expect(routes.map((r) => [r.method, r.path, r.bytes])).toEqual([
      ['POST', '/v1/characters', DEFAULT_CARD_LIMITS.maxBytes],
      ['PATCH', '/v1/characters/:id', DEFAULT_CARD_LIMITS.maxBytes],
      ['POST', '/v1/chat/completions', CLIENT_HISTORY_BYTES],
    ]);
  });
});
