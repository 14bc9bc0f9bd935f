import type { BodyLimits } from '@echoloop/platform';

/**
 * The largest bodies here: an evaluation naming 500 profiles (ids of at most 200 characters, 3 bytes each at
 * worst in UTF-8) and a simulator reply of 32,000 characters (6 bytes each at worst once written as JSON), both
 * well under 512 KiB (body-limits.spec.ts builds them).
 */
export const BODY_LIMITS: BodyLimits = { defaultBytes: 512 * 1024 };
