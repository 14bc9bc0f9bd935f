import { chatFeedbackV1, createEvent } from '@echoloop/contracts';
import { FeedbackEntity } from '@echoloop/persistence';
import { enqueueEvent, OutboxRelay, userText } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { TurnService } from './turn.service';

export const feedbackSchema = z
  .object({
    /** -1 / 1 for thumbs, 1-5 for stars. */
    rating: z
      .number()
      .int()
      .min(-1)
      .max(5)
      .refine((value) => value !== 0, 'use -1 or 1 for thumbs, 1-5 for stars')
      .nullable()
      .optional(),
    comment: userText().trim().max(2_000).nullable().optional(),
    tags: z.array(userText().trim().min(1).max(40)).max(10).optional(),
  })
  .strict()
  .refine((f) => f.rating != null || f.comment || f.tags?.length, 'give a rating, a comment or tags');

export type FeedbackInput = z.infer<typeof feedbackSchema>;

/** Explicit feedback on a reply: stored (one per user and reply, last word wins) and sent as chat.feedback.v1. */
@Injectable()
export class FeedbackService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly turns: TurnService,
    private readonly relay: OutboxRelay,
  ) {}

  async record(userId: string, replyId: string, input: FeedbackInput) {
    const reply = await this.turns.ownedReply(userId, replyId);
    const values = { rating: input.rating ?? null, comment: input.comment || null, tags: input.tags ?? [] };
    const saved = await this.db.transaction(async (tx) => {
      await tx
        .getRepository(FeedbackEntity)
        .upsert({ messageId: reply.id, userId, ...values }, { conflictPaths: ['messageId', 'userId'] });
      const event = createEvent(
        chatFeedbackV1,
        {
          kind: 'rating',
          conversationId: reply.conversationId,
          userId,
          turnId: reply.id,
          checkpointId: reply.checkpointId,
          ...values,
        },
        'chat-gateway',
      );
      await enqueueEvent(tx, chatFeedbackV1, event, reply.conversationId);
      return tx.getRepository(FeedbackEntity).findOneByOrFail({ messageId: reply.id, userId });
    });
    this.relay.wake();
    return {
      messageId: reply.id,
      rating: saved.rating,
      comment: saved.comment,
      tags: saved.tags,
      updatedAt: saved.updatedAt,
    };
  }
}
