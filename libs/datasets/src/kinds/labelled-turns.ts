import { compositeReward, DEFAULT_REWARD_CONFIG, type RewardComponent } from '@echoloop/rewards';
import type { DataSource } from 'typeorm';
import { type DatasetFilters, filterClause } from '../filters';
import { streamRows } from '../stream-rows';

/** A labelled turn as stored, with the labels of one labeller version. */
export interface LabelledTurn {
  turnId: string;
  conversationId: string;
  userId: string;
  userMessageId: string;
  checkpointId: string;
  experimentId: string | null;
  armId: string | null;
  repliedAt: Date;
  turn: {
    characterId: string;
    history: { role: string; content: string }[];
    userMessage: { content: string };
    assistantMessage: { content: string };
    personaSnapshot: Record<string, unknown>;
  };
  signals: { thumbs?: number | null; stars?: number | null; kept?: boolean; regenerated?: boolean };
  labellerVersion: string;
  labels: {
    component: string;
    status: string;
    value: number | null;
    label: string | null;
    delta: number | null;
  }[];
}

export interface TurnQuery {
  filters: DatasetFilters;
  /** Whether users who never chose count as consenting (configuration). */
  consentDefault: boolean;
  /** Only turns whose user message has several finished alternatives (preference pairs). */
  alternativesOnly?: boolean;
}

/**
 * The labelled turns of consenting users matching the filters, through a cursor, in a stable order: by time, or
 * grouped by user message when alternatives are wanted.
 */
export function labelledTurns(db: DataSource, query: TurnQuery): AsyncGenerator<LabelledTurn> {
  const { sql: where, params } = filterClause(query.filters, 2);
  const version = query.filters.labellerVersion
    ? `$${params.length + 2}`
    : 't.labelled_versions[cardinality(t.labelled_versions)]';
  const allParams = [
    query.consentDefault,
    ...params,
    ...(query.filters.labellerVersion ? [query.filters.labellerVersion] : []),
  ];
  const alternatives = query.alternativesOnly
    ? `AND t.user_message_id IN (
         SELECT a.user_message_id FROM reward_turns a
         WHERE cardinality(a.labelled_versions) > 0 GROUP BY a.user_message_id HAVING count(*) > 1)`
    : '';
  const order = query.alternativesOnly
    ? 't.user_message_id, t.replied_at, t.turn_id'
    : 't.replied_at, t.turn_id';
  return mapRows(
    streamRows<Row>(
      db,
      `SELECT t.turn_id, t.conversation_id, t.user_id, t.user_message_id, t.checkpoint_id, t.experiment_id,
              t.arm_id, t.replied_at, t.turn, t.signals, ${version} AS labeller_version,
              COALESCE((SELECT json_agg(json_build_object('component', l.component, 'status', l.status,
                          'value', l.value, 'label', l.label, 'delta', l.details->'delta') ORDER BY l.component)
                        FROM reward_labels l WHERE l.turn_id = t.turn_id AND l.labeller_version = ${version}), '[]')
                AS labels
         FROM reward_turns t JOIN users u ON u.id = t.user_id
        WHERE COALESCE(u.training_consent, $1) AND ${where} ${alternatives}
        ORDER BY ${order}`,
      allParams,
    ),
  );
}

/** How many turns labelledTurns would give (for progress and an ETA). */
export async function countLabelledTurns(db: DataSource, query: TurnQuery): Promise<number> {
  const { sql: where, params } = filterClause(query.filters, 2);
  const [row] = await db.query<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM reward_turns t JOIN users u ON u.id = t.user_id
      WHERE COALESCE(u.training_consent, $1) AND ${where}`,
    [query.consentDefault, ...params],
  );
  return row?.n ?? 0;
}

interface Row {
  turn_id: string;
  conversation_id: string;
  user_id: string;
  user_message_id: string;
  checkpoint_id: string;
  experiment_id: string | null;
  arm_id: string | null;
  replied_at: Date;
  turn: LabelledTurn['turn'];
  signals: LabelledTurn['signals'];
  labeller_version: string;
  labels: LabelledTurn['labels'];
}

async function* mapRows(rows: AsyncGenerator<Row>): AsyncGenerator<LabelledTurn> {
  for await (const r of rows) {
    yield {
      turnId: r.turn_id,
      conversationId: r.conversation_id,
      userId: r.user_id,
      userMessageId: r.user_message_id,
      checkpointId: r.checkpoint_id,
      experimentId: r.experiment_id,
      armId: r.arm_id,
      repliedAt: new Date(r.replied_at),
      turn: r.turn,
      signals: r.signals,
      labellerVersion: r.labeller_version,
      labels: r.labels,
    };
  }
}

/** The reward components of a turn (labelled ones only) and their composite under the default configuration. */
export function rewardsOf(turn: LabelledTurn): {
  components: Partial<Record<RewardComponent, number>>;
  composite: { value: number; version: string } | null;
} {
  const components: Partial<Record<RewardComponent, number>> = {};
  for (const l of turn.labels)
    if (l.status === 'labelled' && l.value !== null) components[l.component as RewardComponent] = l.value;
  const composite =
    Object.keys(components).length > 0 ? compositeReward(components, DEFAULT_REWARD_CONFIG) : null;
  return { components, composite: composite && { value: composite.value, version: composite.version } };
}
