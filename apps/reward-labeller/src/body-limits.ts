import type { BodyLimits } from '@echoloop/platform';

const MiB = 1024 * 1024;

/**
 * `POST /v1/rewards/score` takes up to MAX_SCORE_BATCH_CHARS of text, 6 bytes each at worst once written as JSON
 * (a control character becomes `\u0001`), plus the structure of 32 items × 200 messages: 8 MiB holds it
 * (body-limits.spec.ts builds that body). Nothing else here takes more than a small body.
 */
export const BODY_LIMITS: BodyLimits = {
  defaultBytes: 64 * 1024,
  routes: [{ method: 'POST', path: '/v1/rewards/score', bytes: 8 * MiB }],
};
