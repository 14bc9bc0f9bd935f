import type { RewardTurnEntity } from '@echoloop/persistence';
import type { RewardConfig } from '@echoloop/rewards';
import type { EntityManager } from 'typeorm';
import { compositeOf } from './announcement';
import { experimentValues } from './experiment-projection.repository';
import { storedLabels } from './labels.repository';

/** The most recent pre-period turns a user's covariate is computed from. */
const TURNS = 200;

/**
 * CUPED's covariate for a user new to an experiment: the mean of each per-turn metric (as experimentValues makes
 * them) over their turns this version finished in the `windowMs` before their exposure. Stored once per
 * (experiment, user), a row with no values when there were no such turns, inside the transaction that finishes
 * their first turn in it. Pre-exposure, so the adjustment cannot take away any of the treatment's effect.
 */
export async function recordPrePeriod(
  tx: EntityManager,
  turn: RewardTurnEntity,
  version: string,
  config: RewardConfig,
  windowMs: number,
): Promise<void> {
  if (!turn.experimentId) return;
  const known = (await tx.query(
    `SELECT 1 FROM experiment_user_pre_periods WHERE experiment_id = $1 AND user_id = $2`,
    [turn.experimentId, turn.userId],
  )) as unknown[];
  if (known.length > 0) return;
  const before = (await tx.query(
    `SELECT t.turn_id AS "turnId", t.turn, t.signals, t.replied_at AS "repliedAt"
     FROM experiment_assignments a
     JOIN reward_turns t ON t.user_id = a.user_id
       AND t.replied_at < a.exposed_at AND t.replied_at >= a.exposed_at - make_interval(secs => $3::float8 / 1000)
       AND $4 = ANY(t.labelled_versions)
     WHERE a.experiment_id = $1 AND a.user_id = $2
     ORDER BY t.replied_at DESC LIMIT ${TURNS}`,
    [turn.experimentId, turn.userId, windowMs, version],
  )) as RewardTurnEntity[];
  const labels = await storedLabels(
    tx,
    before.map((t) => t.turnId),
    version,
  );
  const sums = new Map<string, { total: number; count: number }>();
  for (const previous of before) {
    const own = labels.get(previous.turnId) ?? [];
    const values = experimentValues(previous, own, compositeOf(own, config)?.value ?? null);
    for (const [metric, value] of Object.entries(values)) {
      const sum = sums.get(metric) ?? { total: 0, count: 0 };
      sums.set(metric, { total: sum.total + value, count: sum.count + 1 });
    }
  }
  const means = Object.fromEntries([...sums].map(([metric, { total, count }]) => [metric, total / count]));
  await tx.query(
    `INSERT INTO experiment_user_pre_periods (experiment_id, user_id, values, turns) VALUES ($1, $2, $3::jsonb, $4)
     ON CONFLICT (experiment_id, user_id) DO NOTHING`,
    [turn.experimentId, turn.userId, JSON.stringify(means), before.length],
  );
}
