import { chatFeedbackV2, createEvent, THUMBS, type Thumb } from '@echoloop/contracts';
import { OutboxRelay, outboxRow, userText } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { FeedbackRepository } from './feedback.repository';
import { RepliesService } from './replies.service';

/** A field left out keeps its value; `null` takes it back. */
export const feedbackSchema = z
  .object({
    thumb: z.enum(THUMBS).nullable().optional(),
    stars: z.number().int().min(1).max(5).nullable().optional(),
    comment: userText().trim().max(2_000).nullable().optional(),
    tags: z.array(userText().trim().min(1).max(40)).max(10).optional(),
  })
  .strict()
  .refine((f) => Object.keys(f).length > 0, 'give a thumb, stars, a comment or tags');

export type FeedbackInput = z.infer<typeof feedbackSchema>;

export const feedbackResponse = z.object({
  messageId: z.uuid(),
  thumb: z.enum(THUMBS).nullable(),
  stars: z.number().int().nullable(),
  comment: z.string().nullable(),
  tags: z.array(z.string()),
  updatedAt: z.iso.datetime(),
});

const thumbValue = { up: 1, down: -1 } as const;
const thumbOf = (value: -1 | 1 | null): Thumb | null => (value === null ? null : value === 1 ? 'up' : 'down');

/**
 * Explicit feedback on a reply, at any time: one row per user and reply, each field changed only when given, and
 * the whole current feedback sent as chat.feedback.v2 in the same transaction.
 */
@Injectable()
export class FeedbackService {
  constructor(
    private readonly feedback: FeedbackRepository,
    private readonly replies: RepliesService,
    private readonly relay: OutboxRelay,
  ) {}

  async record(userId: string, replyId: string, input: FeedbackInput) {
    const reply = await this.replies.ownedReply(userId, replyId);
    const saved = await this.feedback.change(reply.id, userId, (current) => {
      const next = {
        thumb: input.thumb === undefined ? current.thumb : input.thumb && thumbValue[input.thumb],
        stars: input.stars === undefined ? current.stars : input.stars,
        comment: input.comment === undefined ? current.comment : input.comment || null,
        tags: input.tags ?? current.tags,
      };
      const event = createEvent(
        chatFeedbackV2,
        {
          kind: 'rating',
          conversationId: reply.conversationId,
          userId,
          turnId: reply.id,
          checkpointId: reply.checkpointId,
          ...next,
          thumb: thumbOf(next.thumb),
        },
        'chat-gateway',
      );
      return { next, event: outboxRow(chatFeedbackV2, event, reply.conversationId) };
    });
    this.relay.wake();
    return {
      messageId: reply.id,
      thumb: thumbOf(saved.thumb),
      stars: saved.stars,
      comment: saved.comment,
      tags: saved.tags,
      updatedAt: saved.updatedAt,
    };
  }
}
