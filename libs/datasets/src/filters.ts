import { z } from 'zod';

/** Which labelled turns a dataset holds: the same filters for exports, the CLI and RL snapshots. */
export const datasetFilters = z
  .object({
    from: z.iso.datetime({ offset: true }).optional().describe('Replied at or after'),
    to: z.iso.datetime({ offset: true }).optional().describe('Replied before'),
    characterId: z.uuid().optional(),
    checkpointId: z.string().min(1).max(128).optional(),
    experimentId: z.uuid().optional(),
    armId: z.string().min(1).max(64).optional(),
    /** The labels of this labeller version; the newest version a turn has when unset. */
    labellerVersion: z.string().min(1).max(64).optional(),
  })
  .strict();

export type DatasetFilters = z.infer<typeof datasetFilters>;

/** The WHERE clause over `reward_turns t` for these filters, with its parameters numbered from `first`. */
export function filterClause(filters: DatasetFilters, first = 1): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${first + params.length - 1}`));
  };
  if (filters.from) add('t.replied_at >= ?', filters.from);
  if (filters.to) add('t.replied_at < ?', filters.to);
  if (filters.characterId) add(`t.turn->>'characterId' = ?`, filters.characterId);
  if (filters.checkpointId) add('t.checkpoint_id = ?', filters.checkpointId);
  if (filters.experimentId) add('t.experiment_id = ?', filters.experimentId);
  if (filters.armId) add('t.arm_id = ?', filters.armId);
  if (filters.labellerVersion) add('? = ANY(t.labelled_versions)', filters.labellerVersion);
  else clauses.push('cardinality(t.labelled_versions) > 0');
  return { sql: clauses.join(' AND '), params };
}
