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
import type { Alternative } from './references';
import { lockTurns } from './turn-locks.repository';
import type { TurnPayload } from './turn-payload';

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
      const after = { ...turn, signals: merged };
      await this.revise(tx, turn, after, version, [revise.implicit(after)], revise.config);
      return 'revised' as const;
    });
    if (outcome === 'revised') this.relay.wake();
    return outcome;
  }

  /** Feedback held since before `cutoff` whose turn never came (its reply was deleted). */
  async dropPendingFeedback(cutoff: Date): Promise<void> {
    await this.db.query(`DELETE FROM pending_signals WHERE received_at < $1`, [cutoff]);
  }

  /**
   * The alternatives of a turn's user message (the turn among them), each with its empathy label of this version
   * (null when not stored yet).
   */
  async alternativesOf(turnId: string, version: string): Promise<AlternativeWithEmpathy[]> {
    const rows = await this.db.query<
      {
        turn_id: string;
        signals: TurnSignals;
        turn: RewardTurnEntity['turn'];
        empathy: StoredEmpathy | null;
      }[]
    >(
      `SELECT t.turn_id, t.signals, t.turn,
              (SELECT json_build_object('status', l.status, 'label', l.label, 'details', l.details)
                 FROM reward_labels l
                WHERE l.turn_id = t.turn_id AND l.component = 'empathy' AND l.labeller_version = $2) AS empathy
         FROM reward_turns t
        WHERE t.user_message_id = (SELECT user_message_id FROM reward_turns WHERE turn_id = $1)
        ORDER BY t.replied_at, t.turn_id`,
      [turnId, version],
    );
    return rows.map((r) => ({
      turnId: r.turn_id,
      signals: r.signals,
      payload: r.turn as unknown as TurnPayload,
      reply: (r.turn as unknown as TurnPayload).assistantMessage.content,
      empathy: r.empathy,
    }));
  }

  /**
   * Of these turns, those whose own signals may make an empathy reference (an edit, a swipe away, a rating):
   * feedback that came before their empathy label was stored.
   */
  async withReferenceSignals(turnIds: readonly string[]): Promise<string[]> {
    const rows = await this.db.query<{ turn_id: string }[]>(
      `SELECT turn_id FROM reward_turns
        WHERE turn_id = ANY($1::uuid[])
          AND (jsonb_typeof(signals->'edit') = 'object' OR signals->'kept' = 'false'::jsonb
               OR jsonb_typeof(signals->'stars') = 'number' OR jsonb_typeof(signals->'thumbs') = 'number')`,
      [turnIds],
    );
    return rows.map((r) => r.turn_id);
  }

  /**
   * A label judged again (empathy against a new reference): stored in place of the one `stillCurrent` accepts,
   * under the turn's lock; when this version finished the turn, everything computed from it is revised too.
   * False when the stored label has changed meanwhile (another delivery did it): nothing is written.
   */
  async replaceLabel(
    turnId: string,
    draft: LabelDraft,
    version: string,
    config: RewardConfig,
    stillCurrent: (stored: StoredEmpathy | null) => boolean,
  ): Promise<boolean> {
    const replaced = await this.db.transaction(async (tx) => {
      await lockTurns(tx, [turnId]);
      const turn = await tx.getRepository(RewardTurnEntity).findOneBy({ turnId });
      const stored = (await labelsIn(tx, turnId, version)).find((l) => l.component === draft.component);
      if (!turn || !stored || !stillCurrent(stored)) return false;
      if (turn.labelledVersions.includes(version))
        await this.revise(tx, turn, turn, version, [draft], config);
      else await updateLabel(tx, turnId, version, draft);
      return true;
    });
    if (replaced) this.relay.wake();
    return replaced;
  }

  /** A finished turn whose labels changed (`drafts`): stored, and everything computed from them revised. */
  private async revise(
    tx: EntityManager,
    before: RewardTurnEntity,
    after: RewardTurnEntity,
    version: string,
    drafts: readonly LabelDraft[],
    config: RewardConfig,
  ): Promise<void> {
    const old = await labelsIn(tx, before.turnId, version);
    for (const draft of drafts) await updateLabel(tx, after.turnId, version, draft);
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

/** A stored label made again: its outcome, judge and details replaced. */
async function updateLabel(tx: EntityManager, turnId: string, version: string, draft: LabelDraft) {
  await tx.query(
    `UPDATE reward_labels
        SET status = $4, value = $5, label = $6, details = $7::jsonb, judge_model = $8, raw_output = $9,
            error = $10, prompt_version = $11
      WHERE turn_id = $1 AND component = $2 AND labeller_version = $3`,
    [
      turnId,
      draft.component,
      version,
      draft.status,
      draft.value,
      draft.label,
      JSON.stringify(draft.details),
      draft.judgeModel,
      draft.rawOutput,
      draft.error,
      draft.promptVersion,
    ],
  );
}

/** An empathy label as stored, as far as choosing its reference needs. */
export interface StoredEmpathy {
  status: string;
  label: string | null;
  details: Record<string, unknown> | null;
}

export interface AlternativeWithEmpathy extends Alternative {
  payload: TurnPayload;
  empathy: StoredEmpathy | null;
}

function labelsIn(tx: EntityManager, turnId: string, version: string): Promise<RewardLabelEntity[]> {
  return tx.getRepository(RewardLabelEntity).findBy({ turnId, labellerVersion: version });
}
