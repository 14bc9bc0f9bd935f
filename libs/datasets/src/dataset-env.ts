import { z } from 'zod';

/** Development's fixed key: pseudonyms made with it are only as private as this repository. */
const DEVELOPMENT_KEY = 'echoloop-development-pseudonym-key-not-secret';

/** The variables of whatever makes datasets (the gateway's exports and `GET /v1/turns`, the CLI, snapshots). */
export const datasetEnvShape = {
  /** HMAC key of the users' pseudonyms; rotate it to make new exports unlinkable to older ones. */
  EXPORT_PSEUDONYM_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Where export files are written (a local directory; one artifact store interface). */
  EXPORT_DIR: z.string().min(1).default('exports'),
};

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
