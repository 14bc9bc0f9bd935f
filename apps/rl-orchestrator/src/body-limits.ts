import type { BodyLimits } from '@echoloop/platform';

/** The one body here is `POST /v1/rl/jobs`: a template, a few numbers and a short note (body-limits.spec.ts). */
export const BODY_LIMITS: BodyLimits = { defaultBytes: 16 * 1024 };
