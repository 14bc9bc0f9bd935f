import type { RewardComponent } from '@echoloop/rewards';
import type { EntityManager } from 'typeorm';
import type { LabelDraft } from './label-draft';
import type { StoredLabel } from './stored-label';

/** A label to store, with the turn it belongs to. */
export interface TurnLabel {
  turnId: string;
  draft: LabelDraft;
}

/**
 * The one writer of reward labels, for every path: labels not stored yet, in one statement however many; a label
 * is unique per (turn, component, labeller version), so a redelivery or a replay inserts nothing. Returns those this
 * call inserted.
 */
export async function insertLabels(
  manager: Pick<EntityManager, 'query'>,
  labels: readonly TurnLabel[],
  version: string,
): Promise<TurnLabel[]> {
  if (labels.length === 0) return [];
  const rows = (await manager.query(
    `INSERT INTO reward_labels (turn_id, component, labeller_version, status, value, label, judge_model,
       prompt_version, raw_output, error, details)
     SELECT turn_id, component, $2, status, value, label, judge_model, prompt_version, raw_output, error,
       details
     FROM jsonb_to_recordset($1::jsonb) AS x(turn_id uuid, component text, status text, value float8,
       label text, judge_model text, prompt_version text, raw_output text, error text, details jsonb)
     ON CONFLICT (turn_id, component, labeller_version) DO NOTHING RETURNING turn_id, component`,
    [
      JSON.stringify(
        labels.map(({ turnId, draft: d }) => ({
          turn_id: turnId,
          component: d.component,
          status: d.status,
          value: d.value,
          label: d.label,
          judge_model: d.judgeModel,
          prompt_version: d.promptVersion,
          raw_output: d.rawOutput,
          error: d.error,
          details: d.details,
        })),
      ),
      version,
    ],
  )) as { turn_id: string; component: RewardComponent }[];
  const inserted = new Set(rows.map((r) => `${r.turn_id} ${r.component}`));
  return labels.filter((l) => inserted.has(`${l.turnId} ${l.draft.component}`));
}

/**
 * The turns' labels under this version, in the order they were stored, with only what announcing and projecting
 * them reads (no raw judge output; details only of the live emotion, whose score and delta they carry).
 */
export async function storedLabels(
  tx: EntityManager,
  turnIds: readonly string[],
  version: string,
): Promise<Map<string, StoredLabel[]>> {
  const rows = (await tx.query(
    `SELECT turn_id, component, status, value, label, judge_model AS "judgeModel",
       prompt_version AS "promptVersion", error,
       CASE WHEN component = 'live_emotion' THEN details END AS details
     FROM reward_labels WHERE turn_id = ANY($1::uuid[]) AND labeller_version = $2 ORDER BY id`,
    [turnIds, version],
  )) as (StoredLabel & { turn_id: string })[];
  const byTurn = new Map<string, StoredLabel[]>();
  for (const { turn_id, ...label } of rows) {
    const own = byTurn.get(turn_id);
    if (own) own.push(label);
    else byTurn.set(turn_id, [label]);
  }
  return byTurn;
}
