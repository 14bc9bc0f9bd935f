import { rlTemplateName } from '@echoloop/contracts';
import { userText } from '@echoloop/platform';
import { z } from 'zod';
import { hyperparametersSchema } from '../runners/job-templates';

export const MAX_NOTE_CHARS = 500;

export const createRlJobSchema = z
  .object({
    /** The job template; the configured one (RL_TEMPLATE) when unset. */
    template: rlTemplateName.optional(),
    hyperparameters: hyperparametersSchema.optional(),
    /** Why it was asked for, kept with the trigger decision. */
    note: userText().trim().max(MAX_NOTE_CHARS).optional(),
    onBehalfOf: z
      .uuid()
      .optional()
      .describe(
        'Who asked the calling service (the gateway passes its signed-in user): recorded as `requestedBy` ' +
          'instead of the calling key',
      ),
  })
  .strict();
export type CreateRlJobInput = z.infer<typeof createRlJobSchema>;
