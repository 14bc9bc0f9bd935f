import type { DataSource } from 'typeorm';
import { BackfillTurnsRepository, type TurnCursor } from './backfill-turns.repository';
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
  const turns = new BackfillTurnsRepository(db, range, labeller.version);
  const total = await turns.count();
  let done = 0;
  let after: TurnCursor | undefined;
  const leftBefore = new Date(Date.now() - leaveAfterMs);
  for (;;) {
    const page = await turns.page(PAGE, after);
    for (const turn of page) {
      await labeller.relabel(turn, leftBefore);
      done += 1;
      onProgress({ done, total, elapsedMs: Date.now() - started });
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = last;
  }
  return { done, total, elapsedMs: Date.now() - started };
}
