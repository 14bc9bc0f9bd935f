import { BODY_LIMITS } from './body-limits';
import { createRlJobSchema, MAX_NOTE_CHARS } from './api/rl-job.schemas';

/** 3 bytes in UTF-8, written as is by JSON.stringify: the most a character the note allows can take. */
const WORST_TEXT_CHAR = '\u20ac';

describe('rl-orchestrator body limits', () => {
  it('POST /v1/rl/jobs: the largest valid body fits', () => {
    const body = {
      template: 'verl-grpo',
      hyperparameters: {
        maxSteps: 100_000,
        learningRate: 0.123456789012345,
        beta: 9.87654321012345,
        loraR: 256,
        batchSize: 256,
        seed: 2 ** 31 - 1,
      },
      note: WORST_TEXT_CHAR.repeat(MAX_NOTE_CHARS),
    };
    expect(createRlJobSchema.safeParse(body).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(BODY_LIMITS.defaultBytes);
  });
});
