import { TOPICS } from '@echoloop/contracts';
import { DEAD_LETTER_STATUSES } from '@echoloop/persistence';
import { z } from 'zod';

const id = z.string().regex(/^[1-9][0-9]{0,17}$/, 'must be a dead letter id');

export const deadLetterParams = z.object({ id }).strict();

export const deadLettersQuery = z
  .object({
    topic: z.enum(Object.values(TOPICS)).optional().describe('The topic the messages were meant for'),
    status: z.enum(DEAD_LETTER_STATUSES).optional(),
    before: id.optional().describe('Pass `nextBefore` of the previous page'),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();
export type DeadLettersQuery = z.infer<typeof deadLettersQuery>;

export const replayBody = z
  .object({
    event: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "A corrected event to send instead of the parked message; it must satisfy the topic's contract. Without it the parked message is sent again as it is, which must satisfy the contract by now",
      ),
  })
  .strict();
export type ReplayBody = z.infer<typeof replayBody>;
