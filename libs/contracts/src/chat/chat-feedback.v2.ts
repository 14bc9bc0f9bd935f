import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';
import { swipeFeedback } from './chat-feedback.v1';

export const THUMBS = ['up', 'down'] as const;
export type Thumb = (typeof THUMBS)[number];

/**
 * The user's edit of a reply: the whole current state, so applying it twice is once. `content` is the text the
 * conversation now continues from; null when the user took the edit back (the reply is the model's text again).
 */
export const editFeedback = z.object({
  kind: z.literal('edit'),
  conversationId: z.uuid(),
  userId: z.uuid(),
  /** The reply edited: the turn id of its chat.turn.completed.v1 event. */
  turnId: z.uuid(),
  checkpointId: z.string().min(1).nullable(),
  content: z.string().min(1).nullable(),
  editedAt: z.iso.datetime().nullable(),
});

/**
 * Explicit feedback on a reply, swipe choices and edits (the `edit` kind was added later: a consumer from before
 * it sends such an event to its dead-letter topic, from where it can be replayed). v2 tells thumbs and stars apart (v1 had one `rating` number in
 * which a thumbs-up and a 1-star rating were both 1). A rating event carries the user's whole current feedback on
 * the reply, so applying it twice changes nothing. Key: conversationId, ordered with the conversation's turns.
 */
export const chatFeedbackV2 = defineContract(
  TOPICS.chatFeedbackV2,
  2,
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('rating'),
      conversationId: z.uuid(),
      userId: z.uuid(),
      /** The reply rated: the turn id of its chat.turn.completed.v1 event. */
      turnId: z.uuid(),
      checkpointId: z.string().min(1).nullable(),
      thumb: z.enum(THUMBS).nullable(),
      stars: z.number().int().min(1).max(5).nullable(),
      comment: z.string().nullable(),
      tags: z.array(z.string()),
    }),
    swipeFeedback,
    editFeedback,
  ]),
);
