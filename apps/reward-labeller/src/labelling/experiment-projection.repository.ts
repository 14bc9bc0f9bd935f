import { type ExperimentMetric, isExperimentMetric } from '@echoloop/experiments';
import type { RewardTurnEntity } from '@echoloop/persistence';
import type { EntityManager } from 'typeorm';
import type { TurnPayload } from './turn-payload';
import type { StoredLabel } from './stored-label';

/** Per-turn values of the experiment metrics (names from the one registry, EXPERIMENT_METRICS). */
export type MetricValues = Partial<Record<ExperimentMetric, number>>;

/** A finished turn's per-turn values for the experiment metrics. */
export function experimentValues(
  turn: RewardTurnEntity,
  labels: readonly StoredLabel[],
  composite: number | null,
): MetricValues {
  const payload = turn.turn as unknown as TurnPayload;
  const values: MetricValues = {};
  if (composite !== null) values['composite'] = composite;
  for (const l of labels)
    if (l.status === 'labelled' && l.value !== null && isExperimentMetric(l.component))
      values[l.component] = l.value;
  const delta = labels.find((l) => l.component === 'live_emotion' && l.status === 'labelled')?.details?.[
    'delta'
  ];
  if (typeof delta === 'number') values['live_emotion_delta'] = delta;
  // Liked: a thumbs-up or four or five stars. One star is disliked, never a thumbs-up.
  values['thumbs_up'] = turn.signals.thumbs === 1 || (turn.signals.stars ?? 0) >= 4 ? 1 : 0;
  values['regenerated'] = turn.signals.regenerated ? 1 : 0;
  values['ttft_ms'] = payload.timings.ttftMs;
  values['safety_flagged'] = payload.safety.flagged ? 1 : 0;
  return values;
}

/** How one finished turn moves a user's value of a metric: count and total deltas, or a 0/1 flag that stays 1. */
export type UserUpdate = { kind: 'add'; count: number; total: number } | { kind: 'flag'; value: 0 | 1 };

/**
 * Adds a finished turn to its experiment's per-user and per-arm aggregates, inside the transaction that
 * finishes the turn (so exactly once). Each user counts once per arm with their value (the mean of their turns,
 * turns per conversation, or a flag such as next-day return): when it moves from m to m', the arm's sum moves by
 * m' - m and its sum of squares by m'^2 - m^2.
 */
export async function projectTurn(
  tx: EntityManager,
  turn: RewardTurnEntity,
  updates: Partial<Record<ExperimentMetric, UserUpdate>>,
  { countsAsTurn = true }: { countsAsTurn?: boolean } = {},
): Promise<void> {
  if (!turn.experimentId || !turn.armId) return;
  const key = [turn.experimentId, turn.userId] as const;
  for (const [metric, update] of Object.entries(updates)) {
    const change =
      update.kind === 'add'
        ? await addToUser(tx, key, turn.armId, metric, update)
        : await flagUser(tx, key, turn.armId, metric, update.value);
    if (!change) continue;
    const { previous, next } = change;
    await tx.query(
      `INSERT INTO experiment_arm_metrics (experiment_id, arm_id, metric, users, sum, sum_squares, turns)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (experiment_id, arm_id, metric) DO UPDATE SET
         users = experiment_arm_metrics.users + $4, sum = experiment_arm_metrics.sum + $5,
         sum_squares = experiment_arm_metrics.sum_squares + $6, turns = experiment_arm_metrics.turns + $7`,
      [
        turn.experimentId,
        turn.armId,
        metric,
        previous === null ? 1 : 0,
        next - (previous ?? 0),
        next * next - (previous ?? 0) ** 2,
        countsAsTurn ? 1 : 0,
      ],
    );
  }
}

type UserKey = readonly [experimentId: string, userId: string];
type Change = { previous: number | null; next: number } | null;

const valueOf = (count: number, total: number) => (count > 0 ? total / count : 0);

/** Atomic upsert; `xmax = 0` tells a fresh row from an updated one, so the previous value follows exactly. */
async function addToUser(
  tx: EntityManager,
  [experimentId, userId]: UserKey,
  armId: string,
  metric: string,
  { count, total }: { count: number; total: number },
): Promise<Change> {
  const [row] = (await tx.query(
    `INSERT INTO experiment_user_metrics AS m (experiment_id, user_id, metric, arm_id, count, total)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (experiment_id, user_id, metric) DO UPDATE SET count = m.count + $5, total = m.total + $6
     RETURNING m.count, m.total, (m.xmax = 0) AS inserted`,
    [experimentId, userId, metric, armId, count, total],
  )) as { count: number; total: number; inserted: boolean }[];
  if (!row) return null;
  const next = valueOf(row.count, row.total);
  return { previous: row.inserted ? null : valueOf(row.count - count, row.total - total), next };
}

/** A 0/1 value that, once 1, stays 1: only its first appearance and its flip from 0 move the arm. */
async function flagUser(
  tx: EntityManager,
  [experimentId, userId]: UserKey,
  armId: string,
  metric: string,
  value: 0 | 1,
): Promise<Change> {
  const inserted = (await tx.query(
    `INSERT INTO experiment_user_metrics (experiment_id, user_id, metric, arm_id, count, total)
     VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT (experiment_id, user_id, metric) DO NOTHING RETURNING 1`,
    [experimentId, userId, metric, armId, value],
  )) as unknown[];
  if (inserted.length > 0) return { previous: null, next: value };
  if (value === 0) return null;
  const [flipped] = (await tx.query(
    `UPDATE experiment_user_metrics SET total = 1
     WHERE experiment_id = $1 AND user_id = $2 AND metric = $3 AND total = 0 RETURNING 1`,
    [experimentId, userId, metric],
  )) as [unknown[], number];
  return flipped.length > 0 ? { previous: 0, next: 1 } : null;
}

/**
 * The user-level metrics a finished turn moves: turns per conversation (conversations counted at their first
 * finished turn) and next-day return (a turn on a later UTC day than the user's first exposure).
 */
export async function userLevelUpdates(
  tx: EntityManager,
  turn: RewardTurnEntity,
  version: string,
): Promise<Partial<Record<ExperimentMetric, UserUpdate>>> {
  if (!turn.experimentId) return {};
  const [seen] = (await tx.query(
    `SELECT exists(SELECT 1 FROM reward_turns WHERE conversation_id = $1 AND turn_id <> $2
       AND $3 = ANY(labelled_versions)) AS seen,
       (SELECT exposed_at FROM experiment_assignments WHERE experiment_id = $4 AND user_id = $5) AS exposed_at`,
    [turn.conversationId, turn.turnId, version, turn.experimentId, turn.userId],
  )) as { seen: boolean; exposed_at: Date | null }[];
  const day = (at: Date) => Math.floor(at.getTime() / 86_400_000);
  const returned = seen?.exposed_at ? day(turn.repliedAt) > day(seen.exposed_at) : false;
  return {
    turns_per_conversation: { kind: 'add', count: seen?.seen ? 0 : 1, total: 1 },
    next_day_return: { kind: 'flag', value: returned ? 1 : 0 },
  };
}

/** Per-turn values as updates that add one observation each. */
export function perTurnUpdates(values: MetricValues): Partial<Record<ExperimentMetric, UserUpdate>> {
  return Object.fromEntries(
    Object.entries(values).map(([metric, value]) => [metric, { kind: 'add', count: 1, total: value }]),
  );
}

/**
 * What a revised turn changes in its user's per-turn values: the difference of each metric whose value moved (a
 * metric that appears or disappears adds or removes one observation), nothing for the others.
 */
export function corrections(
  before: MetricValues,
  after: MetricValues,
): Partial<Record<ExperimentMetric, UserUpdate>> {
  const updates: Partial<Record<ExperimentMetric, UserUpdate>> = {};
  for (const metric of new Set([...Object.keys(before), ...Object.keys(after)] as ExperimentMetric[])) {
    const [old, now] = [before[metric], after[metric]];
    if (old === now) continue;
    updates[metric] = {
      kind: 'add',
      count: (now === undefined ? 0 : 1) - (old === undefined ? 0 : 1),
      total: (now ?? 0) - (old ?? 0),
    };
  }
  return updates;
}
