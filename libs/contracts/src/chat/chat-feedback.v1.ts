import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';

/**
 * Explicit feedback on a reply, and swipe choices (which of several regenerated replies the user kept).
 * Key: conversationId, so it stays ordered with the conversation's turns.
 */
export const chatFeedbackV1 = defineContract(
  TOPICS.chatFeedback,
  1,
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('rating'),
      conversationId: z.uuid(),
      userId: z.uuid(),
      /** The reply rated: the turn id of its chat.turn.completed.v1 event. */
      turnId: z.uuid(),
      checkpointId: z.string().min(1).nullable(),
      rating: z.number().int().min(-1).max(5).nullable(),
      comment: z.string().nullable(),
      tags: z.array(z.string()),
    }),
    z.object({
      kind: z.literal('swipe'),
      conversationId: z.uuid(),
      userId: z.uuid(),
      /** The user message the alternatives answer. */
      parentId: z.uuid(),
      /** The reply kept, and the ones passed over. */
      selectedTurnId: z.uuid(),
      rejectedTurnIds: z.array(z.uuid()),
    }),
  ]),
);
