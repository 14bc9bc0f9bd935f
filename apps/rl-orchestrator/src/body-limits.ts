import type { BodyLimits } from '@echoloop/platform';

/** No route here takes a body yet (health, metrics and docs only): a small bound until one does. */
export const BODY_LIMITS: BodyLimits = { defaultBytes: 16 * 1024 };
