import { compositeReward, DEFAULT_REWARD_CONFIG, type RewardComponent } from '@echoloop/rewards';
import type { DataSource } from 'typeorm';
import { type DatasetFilters, filterClause, populationClause } from '../filters';
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
  /** The OpenAI-compatible client that asked for the turn (its key's name); null for Echoloop's own apps. */
  clientName: string | null;
  turn: {
    characterId: string;
    history: { role: string; content: string }[];
    userMessage: { content: string };
    assistantMessage: { content: string };
    personaSnapshot: Record<string, unknown>;
  };
  signals: {
    thumbs?: number | null;
    stars?: number | null;
    kept?: boolean;
    regenerated?: boolean;
    /** The user's text in place of the reply; null when taken back. */
    edit?: { content: string; editedAt: string } | null;
    tags?: string[];
    comment?: string | null;
  };
  /** The version whose labels these are; null for a pending turn with no label yet. */
  labellerVersion: string | null;
  /** Whether the turn's labels are all in under that version (not pending). */
  finished: boolean;
  labels: {
    component: string;
    status: string;
    value: number | null;
    label: string | null;
    delta: number | null;
    /** Why it failed; null unless it did. */
    error: string | null;
  }[];
}

export interface TurnQuery {
  filters: DatasetFilters;
  /** Whether users who never chose count as consenting (configuration). */
  consentDefault: boolean;
  /**
   * Only turns that can make a preference pair: those whose user message has several finished alternatives, and
   * those the user edited (their text over the model's).
   */
  pairsOnly?: boolean;
  /** Alternatives of one user message next to each other (ordered by user message), not by time. */
  byMessage?: boolean;
}

const SELECT = (version: string) => `
  SELECT t.turn_id, t.conversation_id, t.user_id, t.user_message_id, t.checkpoint_id, t.experiment_id,
         t.arm_id, t.replied_at, t.turn, t.signals,
         (SELECT c.client_name FROM conversations c WHERE c.id = t.conversation_id) AS client_name,
         to_char(t.replied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS replied_at_exact,
         ${version} AS labeller_version,
         COALESCE(${version} = ANY(t.labelled_versions), false) AS finished,
         COALESCE((SELECT json_agg(json_build_object('component', l.component, 'status', l.status,
                     'value', l.value, 'label', l.label, 'delta', l.details->'delta', 'error', l.error)
                     ORDER BY l.component)
                   FROM reward_labels l WHERE l.turn_id = t.turn_id AND l.labeller_version = ${version}), '[]')
           AS labels
    FROM reward_turns t JOIN users u ON u.id = t.user_id`;

/** Consenting users' turns matching the filters: the WHERE clause and its parameters ($1 is the consent default). */
function where(query: TurnQuery) {
  const filter = filterClause(query.filters, 2);
  const alternatives = query.pairsOnly
    ? ` AND (t.user_message_id IN (
         SELECT a.user_message_id FROM reward_turns a
          WHERE cardinality(a.labelled_versions) > 0 GROUP BY a.user_message_id HAVING count(*) > 1)
         OR jsonb_typeof(t.signals->'edit') = 'object')`
    : '';
  return {
    sql: `COALESCE(u.training_consent, $1) AND ${populationClause(query.filters.population)} AND ${filter.sql}${alternatives}`,
    params: [query.consentDefault, ...filter.params],
    version: filter.version,
  };
}

/**
 * The labelled turns of consenting users matching the filters, through a cursor, in a stable order: by time, or
 * grouped by user message when alternatives are wanted.
 */
export function labelledTurns(db: DataSource, query: TurnQuery): AsyncGenerator<LabelledTurn> {
  const { sql, params, version } = where(query);
  const order = query.byMessage ? 't.user_message_id, t.replied_at, t.turn_id' : 't.replied_at, t.turn_id';
  return mapRows(streamRows<Row>(db, `${SELECT(version)} WHERE ${sql} ORDER BY ${order}`, params));
}

/**
 * Plans labelledTurns' query without running it: PostgreSQL binds every filter value to its column's type, so a
 * value it could not compare fails here (a data exception, SQLSTATE class 22) as it would in the export.
 */
export async function planLabelledTurns(db: DataSource, query: TurnQuery): Promise<void> {
  const { sql, params, version } = where(query);
  await db.query(`EXPLAIN ${SELECT(version)} WHERE ${sql} ORDER BY t.replied_at, t.turn_id`, params);
}

/** Where a page of turns ends: the next page starts after this turn (keyset paging, stable under inserts). */
export interface TurnCursor {
  repliedAt: string;
  turnId: string;
}

/** One page of labelledTurns' order (by time), after `after`; one more row than asked tells if more follow. */
export async function pageOfTurns(
  db: DataSource,
  query: TurnQuery,
  page: { after?: TurnCursor; limit: number },
): Promise<{ items: LabelledTurn[]; next: TurnCursor | null }> {
  const { sql, params, version } = where(query);
  const keyset = page.after
    ? ` AND (t.replied_at, t.turn_id) > ($${params.length + 1}::timestamptz, $${params.length + 2}::uuid)`
    : '';
  const all = [...params, ...(page.after ? [page.after.repliedAt, page.after.turnId] : []), page.limit + 1];
  const rows = await db.query<Row[]>(
    `${SELECT(version)} WHERE ${sql}${keyset} ORDER BY t.replied_at, t.turn_id LIMIT $${all.length}`,
    all,
  );
  const items: LabelledTurn[] = [];
  for await (const turn of mapRows(fromArray(rows.slice(0, page.limit)))) items.push(turn);
  // The time as PostgreSQL wrote it, to the microsecond, in UTC (RFC 3339, as the API's date-times): a JavaScript
  // Date keeps milliseconds only, and a cursor rounded down would give the page's last turn again.
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
  return { items, next: last ? { repliedAt: last.replied_at_exact, turnId: last.turn_id } : null };
}

async function* fromArray<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

/** How many turns labelledTurns would give (for progress and an ETA). */
export async function countLabelledTurns(db: DataSource, query: TurnQuery): Promise<number> {
  const { sql, params } = where(query);
  const [row] = await db.query<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM reward_turns t JOIN users u ON u.id = t.user_id WHERE ${sql}`,
    params,
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
  client_name: string | null;
  replied_at: Date;
  replied_at_exact: string;
  turn: LabelledTurn['turn'];
  signals: LabelledTurn['signals'];
  labeller_version: string | null;
  finished: boolean;
  labels: LabelledTurn['labels'];
}

async function* mapRows(rows: AsyncGenerator<Row>): AsyncGenerator<LabelledTurn> {
  for await (const r of rows) yield toTurn(r);
}

function toTurn(r: Row): LabelledTurn {
  return {
    turnId: r.turn_id,
    conversationId: r.conversation_id,
    userId: r.user_id,
    userMessageId: r.user_message_id,
    checkpointId: r.checkpoint_id,
    experimentId: r.experiment_id,
    armId: r.arm_id,
    clientName: r.client_name,
    repliedAt: new Date(r.replied_at),
    turn: r.turn,
    signals: r.signals,
    labellerVersion: r.labeller_version,
    finished: r.finished,
    labels: r.labels,
  };
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
