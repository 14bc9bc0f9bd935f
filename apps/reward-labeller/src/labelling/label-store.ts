import { rewardTurnLabelledV1 } from '@echoloop/contracts';
import { RewardLabelEntity, RewardTurnEntity, type TurnSignals } from '@echoloop/persistence';
import { enqueueEvent, OutboxRelay } from '@echoloop/platform';
import type { RewardComponent, RewardConfig } from '@echoloop/rewards';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import {
  corrections,
  experimentValues,
  perTurnUpdates,
  projectTurn,
  userLevelUpdates,
} from './experiment-projection.repository';
import { compositeOf, turnLabelledEvent } from './announcement';
import type { LabelDraft } from './label-draft';
import { insertLabels } from './labels.repository';
import { lockTurns } from './turn-locks.repository';

/**
 * Where labels live. Every write is idempotent, so that a redelivered event, a restart mid-batch or a replay
 * never makes a second label: labels are unique per (turn, component, labeller version) and inserted with ON
 * CONFLICT DO NOTHING; a turn is finished (and its reward.turn.labelled.v1 enqueued, in the same transaction)
 * only by the statement that adds the version to its `labelled_versions`.
 */
@Injectable()
export class LabelStore {
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

  async labelsOf(turnId: string, version: string): Promise<Map<string, RewardLabelEntity>> {
    const rows = await this.db.getRepository(RewardLabelEntity).findBy({ turnId, labellerVersion: version });
    return new Map(rows.map((row) => [row.component, row]));
  }

  /** Stores labels not stored yet; returns the components actually inserted by this call. */
  async saveLabels(
    turnId: string,
    version: string,
    drafts: readonly LabelDraft[],
    manager: EntityManager = this.db.manager,
  ): Promise<Set<RewardComponent>> {
    const labels = drafts.map((draft) => ({ turnId, draft }));
    return new Set((await insertLabels(manager, labels, version)).map((l) => l.draft.component));
  }

  /** Feedback held since before `cutoff` whose turn never came (its reply was deleted). */
  async dropPendingFeedback(cutoff: Date): Promise<void> {
    await this.db.query(`DELETE FROM pending_signals WHERE received_at < $1`, [cutoff]);
  }

  /** Turns with no next user message since `cutoff`, not finished by this version: the user left. */
  abandoned(version: string, cutoff: Date, limit: number): Promise<RewardTurnEntity[]> {
    return this.db
      .getRepository(RewardTurnEntity)
      .createQueryBuilder('t')
      .where('t.replied_at < :cutoff', { cutoff })
      .andWhere("NOT (t.signals ? 'nextUserMessage')")
      .andWhere('NOT (:version = ANY(t.labelled_versions))', { version })
      .orderBy('t.replied_at', 'ASC')
      .take(limit)
      .getMany();
  }

  /** The conversation's live emotion score for this version, or the start score when none is stored yet. */
  async emotionScore(conversationId: string, version: string, start: number): Promise<number> {
    const [row] = (await this.db.query(
      'SELECT emotion_score FROM reward_conversations WHERE conversation_id = $1 AND labeller_version = $2',
      [conversationId, version],
    )) as { emotion_score: number }[];
    return row?.emotion_score ?? start;
  }

  /** Stores the live emotion label and, if this call stored it, moves the conversation's score with it. */
  async saveEmotion(
    turn: RewardTurnEntity,
    version: string,
    draft: LabelDraft,
    scoreAfter: number | null,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const inserted = await this.saveLabels(turn.turnId, version, [draft], tx);
      if (!inserted.has(draft.component) || scoreAfter === null) return;
      await tx.query(
        `INSERT INTO reward_conversations (conversation_id, labeller_version, emotion_score) VALUES ($1, $2, $3)
         ON CONFLICT (conversation_id, labeller_version)
         DO UPDATE SET emotion_score = EXCLUDED.emotion_score, updated_at = now()`,
        [turn.conversationId, version, scoreAfter],
      );
    });
  }

  /**
   * Finishes a turn for this version once: stores the last labels, computes the composite over the labelled
   * components and enqueues reward.turn.labelled.v1, all in one transaction guarded by `labelled_versions`.
   * Returns false when the turn was already finished.
   */
  async finish(turn: RewardTurnEntity, version: string, last: readonly LabelDraft[], config: RewardConfig) {
    const finished = await this.db.transaction(async (tx) => {
      const claimed = (await tx.query(
        `UPDATE reward_turns SET labelled_versions = array_append(labelled_versions, $2)
         WHERE turn_id = $1 AND NOT ($2 = ANY(labelled_versions)) RETURNING turn_id`,
        [turn.turnId, version],
      )) as [unknown[], number];
      if (claimed[0].length === 0) return false;
      await this.saveLabels(turn.turnId, version, last, tx);
      const labels = await labelsIn(tx, turn.turnId, version);
      const composite = compositeOf(labels, config);
      await projectTurn(tx, turn, {
        ...perTurnUpdates(experimentValues(turn, labels, composite?.value ?? null)),
        ...(await userLevelUpdates(tx, turn, version)),
      });
      await enqueueEvent(
        tx,
        rewardTurnLabelledV1,
        turnLabelledEvent(turn, version, labels, composite),
        turn.conversationId,
      );
      return true;
    });
    if (finished) this.relay.wake();
    return finished;
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
