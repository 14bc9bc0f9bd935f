import { RewardTurnEntity } from '@echoloop/persistence';
import { type DataSource } from 'typeorm';
import type { TurnLabeller } from '../labelling/turn-labeller.service';

export interface BackfillRange {
  from: Date;
  to: Date;
}

export interface BackfillProgress {
  done: number;
  total: number;
  elapsedMs: number;
}

const PAGE = 500;

/**
 * Labels every stored turn replied in [from, to) again with the labeller's (new) version, conversation by
 * conversation in reply order, so each conversation's live emotion score is rebuilt in the order it happened.
 * Resumable: turns this version already finished are skipped, so a stopped run picks up where it was.
 */
export async function backfill(
  db: DataSource,
  labeller: TurnLabeller,
  range: BackfillRange,
  leaveAfterMs: number,
  onProgress: (progress: BackfillProgress) => void,
): Promise<BackfillProgress> {
  const started = Date.now();
  const repo = db.getRepository(RewardTurnEntity);
  const base = repo
    .createQueryBuilder('t')
    .where('t.replied_at >= :from AND t.replied_at < :to', range)
    .andWhere('NOT (:version = ANY(t.labelled_versions))', { version: labeller.version });
  const total = await base.clone().getCount();
  let done = 0;
  let after: { conversationId: string; repliedAt: Date; turnId: string } | undefined;
  const leftBefore = new Date(Date.now() - leaveAfterMs);
  for (;;) {
    const page = base
      .clone()
      .orderBy('t.conversation_id')
      .addOrderBy('t.replied_at')
      .addOrderBy('t.turn_id')
      .take(PAGE);
    if (after) {
      page.andWhere('(t.conversation_id, t.replied_at, t.turn_id) > (:c, :r, :id)', {
        c: after.conversationId,
        r: after.repliedAt,
        id: after.turnId,
      });
    }
    const turns = await page.getMany();
    for (const turn of turns) {
      await labeller.relabel(turn, leftBefore);
      done += 1;
      onProgress({ done, total, elapsedMs: Date.now() - started });
    }
    const last = turns.at(-1);
    if (!last || turns.length < PAGE) break;
    after = last;
  }
  return { done, total, elapsedMs: Date.now() - started };
}
