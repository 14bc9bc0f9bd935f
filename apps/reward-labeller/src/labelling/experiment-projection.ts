import type { RewardLabelEntity, RewardTurnEntity } from '@echoloop/persistence';
import type { EntityManager } from 'typeorm';
import type { TurnPayload } from './label-store';

/** A finished turn's values for the experiment metrics (names as in the gateway's results). */
export function experimentValues(
  turn: RewardTurnEntity,
  labels: readonly RewardLabelEntity[],
  composite: number | null,
): Record<string, number> {
  const payload = turn.turn as unknown as TurnPayload;
  const values: Record<string, number> = {};
  if (composite !== null) values['composite'] = composite;
  for (const l of labels) if (l.status === 'labelled' && l.value !== null) values[l.component] = l.value;
  const delta = labels.find((l) => l.component === 'live_emotion' && l.status === 'labelled')?.details?.[
    'delta'
  ];
  if (typeof delta === 'number') values['live_emotion_delta'] = delta;
  values['thumbs_up'] = turn.signals.rating === 1 || (turn.signals.rating ?? 0) >= 4 ? 1 : 0;
  values['regenerated'] = turn.signals.regenerated ? 1 : 0;
  values['ttft_ms'] = payload.timings.ttftMs;
  values['safety_flagged'] = payload.safety.flagged ? 1 : 0;
  return values;
}

/**
 * Adds a finished turn to its experiment's per-user and per-arm aggregates, inside the transaction that
 * finishes the turn (so exactly once). Each user counts once per arm with the mean of their turns: when their
 * mean moves from m to m', the arm's sum moves by m' - m and its sum of squares by m'^2 - m^2.
 */
export async function projectTurn(
  tx: EntityManager,
  turn: RewardTurnEntity,
  values: Record<string, number>,
): Promise<void> {
  if (!turn.experimentId || !turn.armId) return;
  for (const [metric, value] of Object.entries(values)) {
    const [row] = (await tx.query(
      `INSERT INTO experiment_user_metrics (experiment_id, user_id, metric, arm_id, count, total)
       VALUES ($1, $2, $3, $4, 1, $5)
       ON CONFLICT (experiment_id, user_id, metric)
       DO UPDATE SET count = experiment_user_metrics.count + 1, total = experiment_user_metrics.total + $5
       RETURNING count, total`,
      [turn.experimentId, turn.userId, metric, turn.armId, value],
    )) as { count: number; total: number }[];
    if (!row) continue;
    const mean = row.total / row.count;
    const previous = row.count > 1 ? (row.total - value) / (row.count - 1) : null;
    await tx.query(
      `INSERT INTO experiment_arm_metrics (experiment_id, arm_id, metric, users, sum, sum_squares, turns)
       VALUES ($1, $2, $3, $4, $5, $6, 1)
       ON CONFLICT (experiment_id, arm_id, metric) DO UPDATE SET
         users = experiment_arm_metrics.users + $4, sum = experiment_arm_metrics.sum + $5,
         sum_squares = experiment_arm_metrics.sum_squares + $6, turns = experiment_arm_metrics.turns + 1`,
      [
        turn.experimentId,
        turn.armId,
        metric,
        previous === null ? 1 : 0,
        mean - (previous ?? 0),
        mean * mean - (previous ?? 0) ** 2,
      ],
    );
  }
}
