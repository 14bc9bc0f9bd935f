import { RewardTurnEntity } from '@echoloop/persistence';
import type { DataSource, SelectQueryBuilder } from 'typeorm';

/** Where a page of turns to label again starts: after this turn, in (conversation, reply time, turn) order. */
export interface TurnCursor {
  conversationId: string;
  repliedAt: Date;
  turnId: string;
}

/** The stored turns replied in [from, to) that a labeller version has not finished yet. */
export class BackfillTurnsRepository {
  constructor(
    private readonly db: DataSource,
    private readonly range: { from: Date; to: Date },
    private readonly version: string,
  ) {}

  count(): Promise<number> {
    return this.unfinished().getCount();
  }

  /** The next `size` turns after `after`, conversation by conversation in reply order. */
  page(size: number, after?: TurnCursor): Promise<RewardTurnEntity[]> {
    const page = this.unfinished()
      .orderBy('t.conversation_id')
      .addOrderBy('t.replied_at')
      .addOrderBy('t.turn_id')
      .take(size);
    if (after) {
      page.andWhere('(t.conversation_id, t.replied_at, t.turn_id) > (:c, :r, :id)', {
        c: after.conversationId,
        r: after.repliedAt,
        id: after.turnId,
      });
    }
    return page.getMany();
  }

  private unfinished(): SelectQueryBuilder<RewardTurnEntity> {
    return this.db
      .getRepository(RewardTurnEntity)
      .createQueryBuilder('t')
      .where('t.replied_at >= :from AND t.replied_at < :to', this.range)
      .andWhere('NOT (:version = ANY(t.labelled_versions))', { version: this.version });
  }
}
