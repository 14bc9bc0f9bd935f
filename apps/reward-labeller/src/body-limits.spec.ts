import { BODY_LIMITS } from './body-limits';
import { MAX_SCORE_BATCH_CHARS, scoreRequestSchema } from './scoring/score.schemas';

/** JSON.stringify writes a control character as `\u0001`: 6 bytes, the most one character can take. */
const WORST_CHAR = '\u0001';

/** The largest body the schema accepts: every item, message and optional field, the text budget all used. */
function largestScoreBody(extraChars = 0) {
  const items = 32;
  const messages = 200;
  const textsPerItem = messages + 4;
  const perText = Math.floor(MAX_SCORE_BATCH_CHARS / (items * textsPerItem));
  let leftOver = MAX_SCORE_BATCH_CHARS - perText * items * textsPerItem + extraChars;
  const text = () => {
    const extra = Math.min(leftOver, 20_000 - perText);
    leftOver -= extra;
    return WORST_CHAR.repeat(perText + extra);
  };
  return {
    items: Array.from({ length: items }, () => ({
      history: Array.from({ length: messages }, (_, i) => ({
        role: i === messages - 1 ? 'user' : 'assistant',
        content: text(),
      })),
      reply: text(),
      reasoning: text(),
      finishReason: 'cancelled',
      reference: text(),
      nextUserMessage: text(),
      emotionScore: -1_000,
    })),
    components: ['empathy', 'humanlike', 'live_emotion'],
  };
}

const route = BODY_LIMITS.routes!.find((r) => r.path === '/v1/rewards/score')!;

describe('reward-labeller body limits', () => {
  it('POST /v1/rewards/score: the largest batch the schema accepts fits under the body limit', () => {
    const body = largestScoreBody();
    expect(scoreRequestSchema.safeParse(body).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(route.bytes);
  });

  it('the schema refuses a batch with one character more, so no valid body is larger', () => {
    expect(scoreRequestSchema.safeParse(largestScoreBody(1)).success).toBe(false);
  });
});
