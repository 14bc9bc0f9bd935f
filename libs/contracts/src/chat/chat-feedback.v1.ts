import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';

/** Which of several regenerated replies the user kept (the same in v1 and v2). */
export const swipeFeedback = z.object({
  kind: z.literal('swipe'),
  conversationId: z.uuid(),
  userId: z.uuid(),
  /** The user message the alternatives answer. */
  parentId: z.uuid(),
  /** The reply kept, and the ones passed over. */
  selectedTurnId: z.uuid(),
  rejectedTurnIds: z.array(z.uuid()),
});

/**
 * Superseded by chat.feedback.v2, which tells thumbs from stars; still consumed so that events written before
 * the change are not lost. Its `rating` is -1 / 1 for thumbs or 2-5 for stars: 1 was documented and read as a
 * thumbs-up. Key: conversationId, so it stays ordered with the conversation's turns.
 */
export const chatFeedbackV1 = defineContract(
  TOPICS.chatFeedbackV1,
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
    swipeFeedback,
  ]),
);
