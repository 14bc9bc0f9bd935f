import { serviceEnv } from '@echoloop/config';
import { z } from 'zod';

/** Development's fixed key: pseudonyms made with it are only as private as this repository. */
const DEVELOPMENT_KEY = 'echoloop-development-pseudonym-key-not-secret';

export const exportEnv = serviceEnv
  .extend({
    /** HMAC key of the users' pseudonyms in exports; rotate it to make new exports unlinkable to older ones. */
    EXPORT_PSEUDONYM_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    EXPORT_DIR: z.string().min(1).default('exports'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.EXPORT_PSEUDONYM_KEY)
      ctx.addIssue({ code: 'custom', path: ['EXPORT_PSEUDONYM_KEY'], message: 'required in production' });
  })
  .transform((env) => ({ ...env, EXPORT_PSEUDONYM_KEY: env.EXPORT_PSEUDONYM_KEY ?? DEVELOPMENT_KEY }));

export type ExportEnv = z.infer<typeof exportEnv>;
