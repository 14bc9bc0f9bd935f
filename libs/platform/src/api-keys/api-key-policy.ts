import { z } from 'zod';

/** Lifetimes of API keys: the default when a minter names no expiry, the longest allowed, and rotation's grace. */
export interface ApiKeyPolicy {
  defaultTtlDays: number;
  maxTtlDays: number;
  rotationGraceSeconds: number;
}

export const DEFAULT_API_KEY_POLICY: ApiKeyPolicy = {
  defaultTtlDays: 90,
  maxTtlDays: 365,
  rotationGraceSeconds: 3_600,
};

/** The variables of the app that mints keys (the gateway); add to its env schema with `.extend(...)`. */
export const apiKeyPolicyEnv = {
  API_KEY_DEFAULT_TTL_DAYS: z.coerce.number().int().positive().default(DEFAULT_API_KEY_POLICY.defaultTtlDays),
  API_KEY_MAX_TTL_DAYS: z.coerce
    .number()
    .int()
    .positive()
    .max(3_650)
    .default(DEFAULT_API_KEY_POLICY.maxTtlDays),
  API_KEY_ROTATION_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600)
    .default(DEFAULT_API_KEY_POLICY.rotationGraceSeconds),
};

export function apiKeyPolicy(env: {
  API_KEY_DEFAULT_TTL_DAYS: number;
  API_KEY_MAX_TTL_DAYS: number;
  API_KEY_ROTATION_GRACE_SECONDS: number;
}): ApiKeyPolicy {
  return {
    // A default longer than the maximum would mint keys the policy forbids.
    defaultTtlDays: Math.min(env.API_KEY_DEFAULT_TTL_DAYS, env.API_KEY_MAX_TTL_DAYS),
    maxTtlDays: env.API_KEY_MAX_TTL_DAYS,
    rotationGraceSeconds: env.API_KEY_ROTATION_GRACE_SECONDS,
  };
}
