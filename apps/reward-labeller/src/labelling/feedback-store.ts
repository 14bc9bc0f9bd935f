import { rewardTurnLabelledV1 } from '@echoloop/contracts';
import { RewardLabelEntity, RewardTurnEntity, type TurnSignals } from '@echoloop/persistence';
import { enqueueEvent, OutboxRelay } from '@echoloop/platform';
import type { RewardConfig } from '@echoloop/rewards';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import { corrections, experimentValues, projectTurn } from './experiment-projection.repository';
import { compositeOf, turnLabelledEvent } from './announcement';
import type { LabelDraft } from './label-draft';
import { lockTurns } from './turn-locks.repository';

/**
 * Feedback on turns (ratings, swipe picks), whenever it comes: held until its turn arrives, merged into the turn's
 * signals, and, for a turn already finished, revising what was computed from them (LabelStore finishes turns).
 */
@Injectable()
export class FeedbackStore {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly relay: OutboxRelay,
  ) {}

  /**
   * Feedback on a turn, whenever it comes: merged into the turn's signals; held in pending_signals when the turn
   * has not arrived yet; and when this version already finished the turn, its implicit label, composite, experiment
   * aggregates and announcement are revised by the difference it makes. Under the turn's lock, and compared with
   * what is stored, so a redelivery or a repeated rating changes nothing.
   */
  async applyFeedback(
    turnId: string,
    signals: TurnSignals,
    version: string,
    revise: Reviser,
  ): Promise<'held' | 'unchanged' | 'stored' | 'revised'> {
    const outcome = await this.db.transaction(async (tx) => {
      await lockTurns(tx, [turnId]);
      const turn = await tx
        .getRepository(RewardTurnEntity)
        .createQueryBuilder('t')
        .setLock('pessimistic_write')
        .where('t.turn_id = :turnId', { turnId })
        .getOne();
      if (!turn) {
        await tx.query(
          `INSERT INTO pending_signals (turn_id, signals) VALUES ($1, $2::jsonb)
           ON CONFLICT (turn_id) DO UPDATE SET signals = pending_signals.signals || EXCLUDED.signals`,
          [turnId, JSON.stringify(signals)],
        );
        return 'held' as const;
      }
      const merged = { ...turn.signals, ...signals };
      if (isDeepStrictEqual(merged, turn.signals)) return 'unchanged' as const;
      await tx.query(`UPDATE reward_turns SET signals = $2::jsonb WHERE turn_id = $1`, [
        turnId,
        JSON.stringify(merged),
      ]);
      if (!turn.labelledVersions.includes(version)) return 'stored' as const;
      await this.revise(tx, turn, { ...turn, signals: merged }, version, revise);
      return 'revised' as const;
    });
    if (outcome === 'revised') this.relay.wake();
    return outcome;
  }

  /** Feedback held since before `cutoff` whose turn never came (its reply was deleted). */
  async dropPendingFeedback(cutoff: Date): Promise<void> {
    await this.db.query(`DELETE FROM pending_signals WHERE received_at < $1`, [cutoff]);
  }

  /** A finished turn whose signals changed: its implicit label again, and everything computed from it. */
  private async revise(
    tx: EntityManager,
    before: RewardTurnEntity,
    after: RewardTurnEntity,
    version: string,
    { implicit, config }: Reviser,
  ): Promise<void> {
    const old = await labelsIn(tx, before.turnId, version);
    const draft = implicit(after);
    await tx.query(
      `UPDATE reward_labels SET status = $4, value = $5, details = $6::jsonb
       WHERE turn_id = $1 AND component = $2 AND labeller_version = $3`,
      [after.turnId, draft.component, version, draft.status, draft.value, JSON.stringify(draft.details)],
    );
    const labels = await labelsIn(tx, after.turnId, version);
    const oldComposite = compositeOf(old, config);
    const composite = compositeOf(labels, config);
    await projectTurn(
      tx,
      after,
      corrections(
        experimentValues(before, old, oldComposite?.value ?? null),
        experimentValues(after, labels, composite?.value ?? null),
      ),
      { countsAsTurn: false },
    );
    await enqueueEvent(
      tx,
      rewardTurnLabelledV1,
      turnLabelledEvent(after, version, labels, composite),
      after.conversationId,
    );
  }
}

/** How a finished turn's implicit label is made again when its signals change. */
export interface Reviser {
  implicit(turn: RewardTurnEntity): LabelDraft;
  config: RewardConfig;
}

function labelsIn(tx: EntityManager, turnId: string, version: string): Promise<RewardLabelEntity[]> {
  return tx.getRepository(RewardLabelEntity).findBy({ turnId, labellerVersion: version });
}
