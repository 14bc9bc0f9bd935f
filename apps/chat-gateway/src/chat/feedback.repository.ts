import { FeedbackEntity } from '@echoloop/persistence';
import { enqueueRows, type OutboxRow } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** What a user's feedback on a reply says. */
export type FeedbackFields = Pick<FeedbackEntity, 'thumb' | 'stars' | 'comment' | 'tags'>;

/** A change to a user's feedback: the new fields, worked out from the stored ones, and the event carrying them. */
export type FeedbackChange = (current: FeedbackFields) => { next: FeedbackFields; event: OutboxRow };

/** Explicit feedback rows: one per user and reply. */
@Injectable()
export class FeedbackRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Applies `change` to the user's feedback on a reply (made empty first if there is none) under the row's lock, so
   * two changes at once both count, and stores the change's event in the outbox in the same transaction.
   */
  change(messageId: string, userId: string, change: FeedbackChange): Promise<FeedbackEntity> {
    return this.db.transaction(async (tx) => {
      const feedback = tx.getRepository(FeedbackEntity);
      await feedback.createQueryBuilder().insert().values({ messageId, userId }).orIgnore().execute();
      const current = await feedback
        .createQueryBuilder('f')
        .setLock('pessimistic_write')
        .where('f.message_id = :messageId AND f.user_id = :userId', { messageId, userId })
        .getOneOrFail();
      const { next, event } = change(current);
      await feedback.update({ id: current.id }, next);
      await enqueueRows(tx, [event]);
      return feedback.findOneByOrFail({ id: current.id });
    });
  }
}
