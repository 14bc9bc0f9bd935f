import { dateTime } from '@echoloop/schemas';
import { z } from 'zod';

const score = z.coerce.number().min(-1).max(1);

export const POPULATIONS = ['people', 'simulated'] as const;

/**
 * A turn's label state under its labeller version: every component labelled (or skipped by rule), some failed while
 * others were labelled, or all failed.
 */
/** Pending: recorded, its labels not all in yet (the user's next message or leaving decides its live emotion). */
export const LABEL_STATUSES = ['pending', 'labelled', 'partially_failed', 'failed'] as const;
export type LabelStatus = (typeof LABEL_STATUSES)[number];
export type Population = (typeof POPULATIONS)[number];

/** Which labelled turns a dataset holds: the same filters for exports, the CLI, `GET /v1/turns` and RL snapshots. */
export const datasetFilters = z
  .object({
    from: dateTime().optional().describe('Replied at or after'),
    to: dateTime().optional().describe('Replied before'),
    characterId: z.uuid().optional(),
    conversationId: z
      .uuid()
      .optional()
      .describe('One conversation, as turn records identify it (conversationId): its turns in order'),
    checkpointId: z.string().min(1).max(128).optional(),
    experimentId: z.uuid().optional(),
    armId: z.string().min(1).max(64).optional(),
    /** The labels of this labeller version; the newest version a turn has when unset. */
    labellerVersion: z.string().min(1).max(64).optional(),
    empathyMin: score.optional(),
    empathyMax: score.optional(),
    humanlikeMin: score.optional(),
    humanlikeMax: score.optional(),
    liveEmotionMin: score.optional(),
    liveEmotionMax: score.optional(),
    implicitMin: score.optional(),
    implicitMax: score.optional(),
    liveEmotionDeltaMin: z.coerce.number().min(-10).max(10).optional(),
    liveEmotionDeltaMax: z.coerce.number().min(-10).max(10).optional(),
    thumb: z.enum(['up', 'down']).optional(),
    starsMin: z.coerce.number().int().min(1).max(5).optional(),
    starsMax: z.coerce.number().int().min(1).max(5).optional(),
    tag: z.string().trim().min(1).max(40).optional().describe('Turns the user gave this tag'),
    hasComment: z
      .enum(['true', 'false'])
      .optional()
      .describe('Turns the user commented on (true) or did not (false)'),
    trait: z
      .string()
      .regex(/^[a-zA-Z]{1,40}:[a-zA-Z0-9_-]{1,40}$/)
      .optional()
      .describe(
        'A persona trait the live persona inferred, as field:value (for example hiddenNeed:validation)',
      ),
    language: z
      .string()
      .regex(/^[a-z]{2,3}$/)
      .optional()
      .describe('The language the live persona inferred for the user (ISO 639)'),
    labelStatus: z
      .enum(LABEL_STATUSES)
      .optional()
      .describe(
        'Turns whose labels are all there, partly failed, or all failed (a judge down, an unreadable answer)',
      ),
    population: z
      .enum(POPULATIONS)
      .optional()
      .describe(
        "Whose turns: people's (when unset) or the RL loop's simulated users'; one population per dataset, never both",
      ),
  })
  .strict();

/** The clause over `users u` of a population: people unless the simulated users are asked for by name. */
export const populationClause = (population: Population | undefined): string =>
  population === 'simulated' ? 'u.simulated' : 'NOT u.simulated';

export type DatasetFilters = z.infer<typeof datasetFilters>;

/** The SQL of the labeller version a turn is read with: the asked one, else the newest the turn has. */
export const VERSION_OF_TURN = 't.labelled_versions[cardinality(t.labelled_versions)]';
/** The version a pending turn is read with: that of its newest label (none yet: null). */
const VERSION_OF_PENDING = `(SELECT p.labeller_version FROM reward_labels p WHERE p.turn_id = t.turn_id
   ORDER BY p.attempted_at DESC, p.labeller_version DESC LIMIT 1)`;

const RANGES = [
  ['empathy', 'empathyMin', 'empathyMax'],
  ['humanlike', 'humanlikeMin', 'humanlikeMax'],
  ['live_emotion', 'liveEmotionMin', 'liveEmotionMax'],
  ['implicit', 'implicitMin', 'implicitMax'],
] as const;

const labelOf = (status: 'labelled' | 'failed', version: string) =>
  `EXISTS (SELECT 1 FROM reward_labels l WHERE l.turn_id = t.turn_id AND l.labeller_version = ${version}
     AND l.status = '${status}')`;

const LABEL_STATUS_CLAUSES: Record<Exclude<LabelStatus, 'pending'>, (version: string) => string> = {
  labelled: (version) => `NOT ${labelOf('failed', version)}`,
  partially_failed: (version) => `${labelOf('failed', version)} AND ${labelOf('labelled', version)}`,
  failed: (version) => `${labelOf('failed', version)} AND NOT ${labelOf('labelled', version)}`,
};

/**
 * The WHERE clause over `reward_turns t` for these filters, with its parameters numbered from `first`; `version`
 * is the SQL of the labeller version whose labels the component ranges read.
 */
export function filterClause(
  filters: DatasetFilters,
  first = 1,
): { sql: string; params: unknown[]; version: string } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  // Finished turns (under the asked version, or any), unless the pending ones are asked for.
  const pending = filters.labelStatus === 'pending';
  const version = filters.labellerVersion
    ? param(filters.labellerVersion)
    : pending
      ? VERSION_OF_PENDING
      : VERSION_OF_TURN;
  const finished = `${version} = ANY(t.labelled_versions)`;
  if (filters.labellerVersion) clauses.push(pending ? `NOT (${finished})` : finished);
  else clauses.push(`cardinality(t.labelled_versions) ${pending ? '=' : '>'} 0`);
  if (filters.from) clauses.push(`t.replied_at >= ${param(filters.from)}`);
  if (filters.to) clauses.push(`t.replied_at < ${param(filters.to)}`);
  if (filters.characterId) clauses.push(`t.turn->>'characterId' = ${param(filters.characterId)}`);
  if (filters.conversationId) clauses.push(`t.conversation_id = ${param(filters.conversationId)}`);
  if (filters.checkpointId) clauses.push(`t.checkpoint_id = ${param(filters.checkpointId)}`);
  if (filters.experimentId) clauses.push(`t.experiment_id = ${param(filters.experimentId)}`);
  if (filters.armId) clauses.push(`t.arm_id = ${param(filters.armId)}`);
  const label = (component: string, condition: string) =>
    `EXISTS (SELECT 1 FROM reward_labels l WHERE l.turn_id = t.turn_id AND l.labeller_version = ${version}
       AND l.component = '${component}' AND l.status = 'labelled' AND ${condition})`;
  for (const [component, min, max] of RANGES) {
    if (filters[min] !== undefined) clauses.push(label(component, `l.value >= ${param(filters[min])}`));
    if (filters[max] !== undefined) clauses.push(label(component, `l.value <= ${param(filters[max])}`));
  }
  if (filters.tag) clauses.push(`COALESCE(t.signals->'tags', '[]'::jsonb) ? ${param(filters.tag)}`);
  if (filters.hasComment)
    clauses.push(
      `${filters.hasComment === 'true' ? '' : 'NOT '}(jsonb_typeof(t.signals->'comment') = 'string')`,
    );
  if (filters.labelStatus && filters.labelStatus !== 'pending')
    clauses.push(LABEL_STATUS_CLAUSES[filters.labelStatus](version));
  if (filters.liveEmotionDeltaMin !== undefined)
    clauses.push(
      label('live_emotion', `(l.details->>'delta')::float8 >= ${param(filters.liveEmotionDeltaMin)}`),
    );
  if (filters.liveEmotionDeltaMax !== undefined)
    clauses.push(
      label('live_emotion', `(l.details->>'delta')::float8 <= ${param(filters.liveEmotionDeltaMax)}`),
    );
  if (filters.thumb)
    clauses.push(`t.signals->'thumbs' = ${param(filters.thumb === 'up' ? '1' : '-1')}::jsonb`);
  if (filters.starsMin !== undefined)
    clauses.push(
      `jsonb_typeof(t.signals->'stars') = 'number' AND (t.signals->>'stars')::int >= ${param(filters.starsMin)}`,
    );
  if (filters.starsMax !== undefined)
    clauses.push(
      `jsonb_typeof(t.signals->'stars') = 'number' AND (t.signals->>'stars')::int <= ${param(filters.starsMax)}`,
    );
  if (filters.trait) {
    const [field, value] = filters.trait.split(':');
    clauses.push(`t.turn->'personaSnapshot'->'fields'->${param(field)}::text->>'value' = ${param(value)}`);
  }
  if (filters.language)
    clauses.push(`t.turn->'personaSnapshot'->'fields'->'language'->>'value' = ${param(filters.language)}`);
  return { sql: clauses.join(' AND '), params, version };
}
