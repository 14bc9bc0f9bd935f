import { z } from 'zod';

/** Empty counts as unset: compose passes `${VAR:-}` through as an empty string. */
const unset = (value: unknown) => (value === '' ? undefined : value);

/** Development's fixed key: pseudonyms made with it are only as private as this repository. */
const DEVELOPMENT_KEY = 'echoloop-development-pseudonym-key-not-secret';

/** The variables of whatever makes datasets (the gateway's exports and `GET /v1/turns`, the CLI, snapshots). */
export const datasetEnvShape = {
  /** HMAC key of the users' pseudonyms; rotate it to make new exports unlinkable to older ones. */
  EXPORT_PSEUDONYM_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Where export files are written: kept there, or staged there before the upload to the bucket below. */
  EXPORT_DIR: z.string().min(1).default('exports'),
  /** An S3-compatible bucket for exports instead of EXPORT_DIR (and its endpoint, region, key prefix, keys). */
  EXPORT_S3_BUCKET: z.preprocess(unset, z.string().min(3).max(63).optional()),
  EXPORT_S3_ENDPOINT: z.preprocess(unset, z.url().optional()),
  EXPORT_S3_REGION: z.string().min(1).default('us-east-1'),
  EXPORT_S3_PREFIX: z.string().max(200).default('exports/'),
  EXPORT_S3_ACCESS_KEY_ID: z.preprocess(unset, z.string().min(1).optional()),
  EXPORT_S3_SECRET_ACCESS_KEY: z.preprocess(unset, z.string().min(1).optional()),
};

export type DatasetEnv = z.infer<z.ZodObject<typeof datasetEnvShape>>;

/** The pseudonym key in effect: required in production, the fixed development key elsewhere. */
export function pseudonymKey(env: { NODE_ENV: string; EXPORT_PSEUDONYM_KEY?: string | undefined }): string {
  if (env.EXPORT_PSEUDONYM_KEY) return env.EXPORT_PSEUDONYM_KEY;
  if (env.NODE_ENV === 'production') throw new Error('EXPORT_PSEUDONYM_KEY is required in production');
  return DEVELOPMENT_KEY;
}

/** For an env schema's superRefine: production must name its own key. */
export function requireKeyInProduction(
  env: { NODE_ENV: string; EXPORT_PSEUDONYM_KEY?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (env.NODE_ENV === 'production' && !env.EXPORT_PSEUDONYM_KEY)
    ctx.addIssue({ code: 'custom', path: ['EXPORT_PSEUDONYM_KEY'], message: 'required in production' });
}
