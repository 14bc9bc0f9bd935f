import { rlTemplateName } from '@echoloop/contracts';
import { userText } from '@echoloop/platform';
import { z } from 'zod';

/** Ids of RL jobs and evaluations: the services' uuids (v4), checked here before anything is forwarded. */
export const idSchema = z.uuidv4();

/** A refresh by hand: the configured template unless one is named, and why it was asked for. */
export const startRlJobSchema = z
  .object({
    template: rlTemplateName.optional(),
    note: userText().trim().max(500).optional(),
  })
  .strict();
export type StartRlJobInput = z.infer<typeof startRlJobSchema>;
