import { BODY_LIMITS } from './body-limits';
import { createEvaluationRequest, EVALUATION_ID_MAX_CHARS } from '@echoloop/vocabulary';
import { replySchema } from './simulator/simulator.schemas';

/** JSON.stringify writes a control character as `\u0001`: 6 bytes, the most any character can take. */
const WORST_CHAR = '\u0001';

const fits = (schema: { safeParse: (v: unknown) => { success: boolean } }, body: unknown) => {
  expect(schema.safeParse(body).success).toBe(true);
  expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(BODY_LIMITS.defaultBytes);
};

describe('eval-runner body limits', () => {
  it('POST /v1/evaluations: 500 profiles with the longest ids fit', () => {
    const id = 'a'.repeat(EVALUATION_ID_MAX_CHARS);
    fits(createEvaluationRequest, {
      checkpointId: id,
      suite: 'sentient',
      mode: 'sage',
      profiles: Array.from({ length: 500 }, () => id),
      pool: 'benchmark',
      limit: 500,
    });
  });

  it('POST /v1/simulator/sessions/:id/turns: the longest reply fits', () => {
    fits(replySchema, { reply: WORST_CHAR.repeat(32_000), turn: Number.MAX_SAFE_INTEGER });
  });
});
