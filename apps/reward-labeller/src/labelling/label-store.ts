import { rewardTurnLabelledV1 } from '@echoloop/contracts';
import { RewardTurnEntity, type TurnSignals } from '@echoloop/persistence';
import { enqueueRows, OutboxRelay, outboxRow, type OutboxRow } from '@echoloop/platform';
import type { RewardConfig } from '@echoloop/rewards';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import { compositeOf, turnLabelledEvent } from './announcement';
import {
  experimentValues,
  perTurnUpdates,
  projectTurn,
  userLevelUpdates,
} from './experiment-projection.repository';
import { type FinishPlan, type FinishStep, StalePlanError } from './finish-plan';
import type { TurnPayload } from './turn-payload';
import { insertLabels, storedLabels, type TurnLabel } from './labels.repository';
import { lockTurns } from './turn-locks.repository';
import { recordPrePeriod } from './pre-period.repository';
import type { LabellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';

/**
 * Where labels live, written for any number of turns at once, a few statements each (arrays in, `unnest` / JSON
 * record sets). Every write is idempotent, so that a redelivered batch, a restart mid-batch or a replay never makes
 * a second label: labels are unique per (turn, component, labeller version) and inserted ON CONFLICT DO NOTHING; a
 * turn is finished (and its reward.turn.labelled.v1 enqueued, in the same transaction) only by the statement that
 * adds the version to its `labelled_versions`.
 */
@Injectable()
export class LabelStore {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(LABELLER_ENV) private readonly env: LabellerEnv,
    private readonly relay: OutboxRelay,
  ) {}

  /**
   * Records the turns whose reply still exists, each with the feedback held for it, under the turns' locks (feedback
   * takes them too). Returns the ids of the turns stored, now or before.
   */
  recordTurns(turns: readonly TurnPayload[]): Promise<Set<string>> {
    const ids = turns.map((t) => t.turnId);
    return this.db.transaction(async (tx) => {
      await lockTurns(tx, ids);
      await tx.query(
        `INSERT INTO reward_turns (turn_id, conversation_id, user_id, user_message_id, checkpoint_id,
           experiment_id, arm_id, turn, replied_at, signals)
         SELECT (e->>'turnId')::uuid, (e->>'conversationId')::uuid, (e->>'userId')::uuid,
           (e->'userMessage'->>'id')::uuid, e->>'checkpointId', (e->>'experimentId')::uuid, e->>'armId', e,
           (e->'assistantMessage'->>'createdAt')::timestamptz, COALESCE(p.signals, '{}'::jsonb)
         FROM jsonb_array_elements($1::jsonb) e
         LEFT JOIN pending_signals p ON p.turn_id = (e->>'turnId')::uuid
         WHERE EXISTS (SELECT 1 FROM messages m WHERE m.id = (e->>'turnId')::uuid)
         ON CONFLICT (turn_id) DO NOTHING`,
        [JSON.stringify(turns)],
      );
      const rows = (await tx.query(`SELECT turn_id FROM reward_turns WHERE turn_id = ANY($1::uuid[])`, [
        ids,
      ])) as { turn_id: string }[];
      const stored = rows.map((r) => r.turn_id);
      await tx.query(`DELETE FROM pending_signals WHERE turn_id = ANY($1::uuid[])`, [stored]);
      return new Set(stored);
    });
  }

  /** Each user message's turns other than the newest one named: the user asked for another alternative. */
  async markRegenerated(newest: readonly { userMessageId: string; turnId: string }[]): Promise<void> {
    if (newest.length === 0) return;
    await this.db.query(
      `UPDATE reward_turns r SET signals = r.signals || '{"regenerated": true}'::jsonb
       FROM unnest($1::uuid[], $2::uuid[]) AS n(user_message_id, turn_id)
       WHERE r.user_message_id = n.user_message_id AND r.turn_id <> n.turn_id`,
      [newest.map((n) => n.userMessageId), newest.map((n) => n.turnId)],
    );
  }

  /** The components this version has stored for each turn. */
  async storedComponents(turnIds: readonly string[], version: string): Promise<Map<string, Set<string>>> {
    const rows = (await this.db.query(
      `SELECT turn_id, component FROM reward_labels WHERE turn_id = ANY($1::uuid[]) AND labeller_version = $2`,
      [turnIds, version],
    )) as { turn_id: string; component: string }[];
    const stored = new Map<string, Set<string>>();
    for (const row of rows)
      stored.set(row.turn_id, (stored.get(row.turn_id) ?? new Set()).add(row.component));
    return stored;
  }

  /** Stores labels not stored yet; returns those actually inserted by this call. */
  saveLabels(
    labels: readonly TurnLabel[],
    version: string,
    manager: EntityManager = this.db.manager,
  ): Promise<TurnLabel[]> {
    return insertLabels(manager, labels, version);
  }

  /**
   * The turns of these conversations that this version has not finished, newest first. The payloads of the turns
   * in `known` (the batch at hand, as recorded) are taken from it rather than read back.
   */
  async unfinishedIn(
    conversationIds: readonly string[],
    version: string,
    known: ReadonlyMap<string, TurnPayload> = new Map(),
  ): Promise<RewardTurnEntity[]> {
    const rows = (await this.db.query(
      `SELECT turn_id AS "turnId", conversation_id AS "conversationId", user_id AS "userId",
         user_message_id AS "userMessageId", checkpoint_id AS "checkpointId", experiment_id AS "experimentId",
         arm_id AS "armId", CASE WHEN turn_id = ANY($3::uuid[]) THEN NULL ELSE turn END AS turn,
         replied_at AS "repliedAt", signals, labelled_versions AS "labelledVersions", created_at AS "createdAt"
       FROM reward_turns
       WHERE conversation_id = ANY($1::uuid[]) AND NOT ($2 = ANY(labelled_versions))
       ORDER BY replied_at DESC`,
      [conversationIds, version, [...known.keys()]],
    )) as RewardTurnEntity[];
    for (const row of rows) row.turn ??= known.get(row.turnId) as unknown as RewardTurnEntity['turn'];
    return rows;
  }

  /** The conversations' live emotion scores for this version (absent: none stored yet). */
  async emotionScores(conversationIds: readonly string[], version: string): Promise<Map<string, number>> {
    const rows = (await this.db.query(
      `SELECT conversation_id, emotion_score FROM reward_conversations
       WHERE conversation_id = ANY($1::uuid[]) AND labeller_version = $2`,
      [conversationIds, version],
    )) as { conversation_id: string; emotion_score: number }[];
    return new Map(rows.map((r) => [r.conversation_id, r.emotion_score]));
  }

  /**
   * The turns the arriving ones credit with the user's return: for each arriving turn whose user's previous turn
   * is in another conversation, between `minGapMs` and `windowMs` before it, the last `turns` turns of that
   * conversation not credited yet.
   */
  async returnCredits(
    arriving: readonly TurnPayload[],
    { minGapMs, windowMs, turns }: { minGapMs: number; windowMs: number; turns: number },
  ): Promise<string[]> {
    if (arriving.length === 0) return [];
    const rows = (await this.db.query(
      `WITH arriving AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[])
           AS a(turn_id, user_id, conversation_id, at)),
       previous AS (
         SELECT DISTINCT ON (a.turn_id) a.conversation_id AS arriving_in, a.at, p.conversation_id, p.replied_at
         FROM arriving a
         JOIN reward_turns p ON p.user_id = a.user_id AND p.replied_at < a.at AND p.turn_id <> a.turn_id
         ORDER BY a.turn_id, p.replied_at DESC)
       SELECT DISTINCT c.turn_id FROM previous pr
       CROSS JOIN LATERAL (
         SELECT turn_id, signals FROM reward_turns
         WHERE conversation_id = pr.conversation_id ORDER BY replied_at DESC LIMIT $7) c
       WHERE pr.conversation_id <> pr.arriving_in
         AND pr.at - pr.replied_at >= make_interval(secs => $5::float8 / 1000)
         AND pr.at - pr.replied_at <= make_interval(secs => $6::float8 / 1000)
         AND NOT (c.signals ? 'returned')`,
      [
        arriving.map((t) => t.turnId),
        arriving.map((t) => t.userId),
        arriving.map((t) => t.conversationId),
        arriving.map((t) => t.userMessage.createdAt),
        minGapMs,
        windowMs,
        turns,
      ],
    )) as { turn_id: string }[];
    return rows.map((r) => r.turn_id);
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

  /**
   * One transaction for the plan: the signals, the live emotion labels (moving the conversation's score only
   * with a label this call stored), then each turn finished once. Turns in an experiment are finished one by
   * one, in order, since each one's aggregates read which turns of its conversation are finished already.
   * Returns the labels inserted.
   */
  async finish(plan: FinishPlan, version: string, config: RewardConfig): Promise<TurnLabel[]> {
    if (plan.signals.size === 0 && plan.steps.length === 0) return [];
    const inserted = await this.db.transaction(async (tx) => {
      await this.checkUnchanged(tx, plan.read);
      if (plan.signals.size > 0)
        await tx.query(
          `UPDATE reward_turns r SET signals = r.signals || p.patch
           FROM jsonb_each($1::jsonb) AS p(turn_id, patch) WHERE r.turn_id = p.turn_id::uuid`,
          [JSON.stringify(Object.fromEntries(plan.signals))],
        );
      const emotions = await this.saveEmotions(tx, plan.steps, version);
      const chunks = plan.steps.some((s) => s.turn.experimentId)
        ? plan.steps.map((step) => [step])
        : [plan.steps];
      const last: TurnLabel[] = [];
      for (const chunk of chunks) last.push(...(await this.finishChunk(tx, chunk, version, config)));
      return [...emotions, ...last];
    });
    if (plan.steps.length > 0) this.relay.wake();
    return inserted;
  }

  /**
   * Takes the turns' locks (feedback takes them too) and checks that no feedback changed their signals since the
   * plan read them: a pick or a rating that came in between would otherwise be overwritten by the plan's implicit
   * keep, or be missing from its labels.
   */
  private async checkUnchanged(tx: EntityManager, read: ReadonlyMap<string, TurnSignals>): Promise<void> {
    if (read.size === 0) return;
    const ids = [...read.keys()];
    await lockTurns(tx, ids);
    const rows = (await tx.query(
      `SELECT turn_id, signals FROM reward_turns WHERE turn_id = ANY($1::uuid[])`,
      [ids],
    )) as { turn_id: string; signals: TurnSignals }[];
    const changed = rows.filter((r) => !isDeepStrictEqual(r.signals, read.get(r.turn_id)));
    if (changed.length > 0) throw new StalePlanError(changed.length);
  }

  private async saveEmotions(tx: EntityManager, steps: readonly FinishStep[], version: string) {
    const drafts = steps.flatMap((s) =>
      s.emotion ? [{ turnId: s.turn.turnId, draft: s.emotion.draft }] : [],
    );
    const inserted = new Set((await this.saveLabels(drafts, version, tx)).map((l) => l.turnId));
    const scores = new Map<string, number>();
    for (const step of steps)
      if (step.emotion?.scoreAfter != null && inserted.has(step.turn.turnId))
        scores.set(step.turn.conversationId, step.emotion.scoreAfter);
    if (scores.size > 0)
      await tx.query(
        `INSERT INTO reward_conversations (conversation_id, labeller_version, emotion_score)
         SELECT c, $3, s FROM unnest($1::uuid[], $2::float8[]) AS u(c, s)
         ON CONFLICT (conversation_id, labeller_version)
         DO UPDATE SET emotion_score = EXCLUDED.emotion_score, updated_at = now()`,
        [[...scores.keys()], [...scores.values()], version],
      );
    return drafts.filter((d) => inserted.has(d.turnId));
  }

  /** Claims the turns (only those not finished yet), stores their last labels, projects and announces them. */
  private async finishChunk(
    tx: EntityManager,
    steps: readonly FinishStep[],
    version: string,
    config: RewardConfig,
  ): Promise<TurnLabel[]> {
    const claimed = new Set(
      (
        (await tx.query(
          `UPDATE reward_turns SET labelled_versions = array_append(labelled_versions, $2)
           WHERE turn_id = ANY($1::uuid[]) AND NOT ($2 = ANY(labelled_versions)) RETURNING turn_id`,
          [steps.map((s) => s.turn.turnId), version],
        )) as [{ turn_id: string }[], number]
      )[0].map((r) => r.turn_id),
    );
    const finishing = steps.filter((s) => claimed.has(s.turn.turnId));
    if (finishing.length === 0) return [];
    const inserted = await this.saveLabels(
      finishing.flatMap((s) => s.last.map((draft) => ({ turnId: s.turn.turnId, draft }))),
      version,
      tx,
    );
    const byTurn = await storedLabels(tx, [...claimed], version);
    const events: OutboxRow[] = [];
    for (const { turn } of finishing) {
      const own = byTurn.get(turn.turnId) ?? [];
      const composite = compositeOf(own, config);
      if (turn.experimentId) {
        await recordPrePeriod(tx, turn, version, config, this.env.EXPERIMENT_PRE_PERIOD_MS);
        await projectTurn(tx, turn, {
          ...perTurnUpdates(experimentValues(turn, own, composite?.value ?? null)),
          ...(await userLevelUpdates(tx, turn, version)),
        });
      }
      events.push(
        outboxRow(
          rewardTurnLabelledV1,
          turnLabelledEvent(turn, version, own, composite),
          turn.conversationId,
        ),
      );
    }
    await enqueueRows(tx, events);
    return inserted;
  }
}
