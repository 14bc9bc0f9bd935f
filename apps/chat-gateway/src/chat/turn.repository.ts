import {
  ConversationEntity,
  type DirectorNote,
  MessageEntity,
  type MessageRole,
  type MessageStatus,
  PreparedStatements,
  UserProfileEntity,
} from '@echoloop/persistence';
import { OUTBOX_CHANNEL, OUTBOX_INSERT, type OutboxRow } from '@echoloop/platform';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** A complete, kept message before the turn's user message, as the prompt and the events read it. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  createdAt: Date;
}

/** Everything a turn reads from the database, in one statement (for a new message, the one that stores it). */
export interface TurnInputs {
  conversation: ConversationEntity;
  userMessage: MessageEntity;
  /** False when the message was stored before (a resend): this statement wrote nothing. */
  created: boolean;
  /** Complete, kept messages before the user message, oldest first, at most `historyLimit`. */
  history: HistoryMessage[];
  /** Which user turn of the conversation the user message is (1-based). */
  userTurn: number;
  /** The character's card as stored (validated by the caller). */
  card: unknown;
  userName: string;
  profile: UserProfileEntity | null;
}

/**
 * The turn's message: one being sent now (with the id it gets if stored, so a turn started before the statement
 * knows it), or one already stored (a resend, or the parent of a regeneration).
 */
export type TurnTarget =
  | { kind: 'send'; messageId: string; conversationId: string; content: string; clientMessageId: string }
  | { kind: 'stored'; conversationId: string; clientMessageId: string }
  | { kind: 'regenerate'; replyId: string };

/**
 * The number a sent message takes (see MessageEntity.userTurn): the previous user message's plus one, read from the
 * newest end of the conversation's index; a count only where that message has no number (stored another way).
 */
const NEXT_USER_TURN = `
  coalesce(
    (SELECT m.user_turn FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user'
      ORDER BY m.created_at DESC, m.id DESC LIMIT 1),
    (SELECT count(*)::int FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user')) + 1`;

/**
 * The turn's read of everything else, relative to `target` (its conversation, message and user): the history
 * before it, its user-turn number, the card, the user's display name and profile. Ownership is in the joins:
 * another user's conversation yields no row.
 */
const INPUTS = `
  SELECT row_to_json(c) AS conversation, row_to_json(target) AS message, target.inserted,
         ch.card, u.display_name,
         CASE WHEN p.user_id IS NULL THEN NULL ELSE row_to_json(p) END AS profile,
         coalesce(target.user_turn, (SELECT count(*)::int FROM messages m
           WHERE m.conversation_id = c.id AND m.role = 'user'
             AND (target.inserted OR (m.created_at, m.id) < (target.created_at, target.id))) + 1) AS user_turn,
         (SELECT coalesce(json_agg(h ORDER BY h.created_at, h.id), '[]') FROM (
             SELECT m.id, m.role, m.content, m.created_at FROM messages m
              WHERE m.conversation_id = c.id AND m.status = 'complete' AND m.selected
                AND (target.inserted OR (m.created_at, m.id) < (target.created_at, target.id))
              ORDER BY m.created_at DESC, m.id DESC LIMIT $historyLimit) h) AS history
    FROM target
    JOIN conversations c ON c.id = target.conversation_id AND c.user_id = $userId
    JOIN characters ch ON ch.id = c.character_id
    JOIN users u ON u.id = c.user_id
    LEFT JOIN user_profiles p ON p.user_id = c.user_id`;

/**
 * Where the turn's message comes from. A send inserts it in the same statement (its snapshot does not see the new
 * row, so the history is exactly what came before); a duplicate clientMessageId inserts nothing and yields no row.
 */
const TARGETS: Record<TurnTarget['kind'], string> = {
  send: `
    WITH target AS (
      INSERT INTO messages (id, conversation_id, role, content, client_message_id, user_turn)
      SELECT $messageId::uuid, c.id, 'user', $content, $clientMessageId, ${NEXT_USER_TURN} FROM conversations c
       WHERE c.id = $conversationId AND c.user_id = $userId
      ON CONFLICT (conversation_id, client_message_id) WHERE client_message_id IS NOT NULL DO NOTHING
      RETURNING *, true AS inserted)`,
  stored: `
    WITH target AS (
      SELECT *, false AS inserted FROM messages
       WHERE conversation_id = $conversationId AND client_message_id = $clientMessageId)`,
  regenerate: `
    WITH target AS (
      SELECT parent.*, false AS inserted FROM messages reply JOIN messages parent ON parent.id = reply.parent_id
       WHERE reply.id = $replyId AND reply.role = 'assistant')`,
};

/**
 * The user's shared limits, taken in the turn's statement: one concurrent-stream slot (`slotId`, expiring unless
 * renewed), one rate-limit token and one turn of the daily quota, all or none. The row lock on `turn_gates`
 * serialises one user's turns across every process.
 */
export interface TurnGate {
  slotId: string;
  slotTtlMs: number;
  maxStreams: number;
  ratePerMinute: number;
  /** Turns (messages and regenerations) per UTC day. */
  dailyQuota: number;
}

/** The gate said no: nothing was taken or stored. */
export interface GateRefusal {
  refused: 'too_many_streams' | 'rate_limited' | 'quota_exceeded';
  retryAfterSeconds: number;
}

const TODAY = `(now() AT TIME ZONE 'UTC')::date`;

/**
 * A user's first gate starts the quota from the messages they stored today (counted only then: the row's absence
 * is a primary-key lookup); later ones read the row under its lock, and a new day starts from zero.
 */
const GATE = `
  first_use AS (
    SELECT CASE WHEN EXISTS (SELECT 1 FROM turn_gates WHERE user_id = $userId) THEN 0 ELSE (
             SELECT count(*)::int FROM messages m JOIN conversations c ON c.id = m.conversation_id
              WHERE c.user_id = $userId AND m.role = 'user'
                AND m.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') END AS used
  ),
  first_gate AS (SELECT used, used < $dailyQuota::int AS ok FROM first_use),
  gate AS (
    INSERT INTO turn_gates AS g (user_id, slots, tokens, refilled_at, quota_day, quota_used)
    SELECT $userId,
           CASE WHEN f.ok
             THEN jsonb_build_object($slotId::text, extract(epoch FROM now()) * 1000 + $slotTtlMs::float8)
             ELSE '{}'::jsonb END,
           $ratePerMinute::float8 - f.ok::int, now(), ${TODAY}, f.used + f.ok::int
      FROM first_gate f
    ON CONFLICT (user_id) DO UPDATE SET (slots, tokens, refilled_at, quota_day, quota_used) = (
      SELECT CASE WHEN s.ok
               THEN s.live || jsonb_build_object($slotId::text, extract(epoch FROM now()) * 1000 + $slotTtlMs::float8)
               ELSE s.live END,
             s.tokens - s.ok::int, now(), ${TODAY}, s.used + s.ok::int
        FROM (SELECT l.live, b.tokens, q.used,
                     l.held < $maxStreams::int AND b.tokens >= 1 AND q.used < $dailyQuota::int AS ok
                FROM (SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) AS live, count(key) AS held
                        FROM jsonb_each(g.slots) WHERE value::float8 > extract(epoch FROM now()) * 1000) l,
                     (SELECT least($ratePerMinute::float8,
                                   g.tokens + extract(epoch FROM now() - g.refilled_at) * $ratePerMinute::float8 / 60)
                               AS tokens) b,
                     (SELECT CASE WHEN g.quota_day = ${TODAY} THEN g.quota_used ELSE 0 END AS used) q) s)
    RETURNING g.slots ? $slotId::text AS granted, g.tokens,
              (SELECT count(*)::int FROM jsonb_object_keys(g.slots)) AS held,
              g.quota_used >= $dailyQuota::int AS quota_reached,
              ceil(extract(epoch FROM (${TODAY} + 1)::timestamp AT TIME ZONE 'UTC' - now()))::int AS quota_resets_in)`;

/** A send stores its message only when the gate let it through. */
const GATED_SEND = `
    WITH ${GATE},
    target AS (
      INSERT INTO messages (id, conversation_id, role, content, client_message_id, user_turn)
      SELECT $messageId::uuid, c.id, 'user', $content, $clientMessageId, ${NEXT_USER_TURN} FROM conversations c
       WHERE c.id = $conversationId AND c.user_id = $userId AND (SELECT granted FROM gate)
      ON CONFLICT (conversation_id, client_message_id) WHERE client_message_id IS NOT NULL DO NOTHING
      RETURNING *, true AS inserted)`;

const GATED_REGENERATE = `
    WITH ${GATE},
    target AS (
      SELECT parent.*, false AS inserted FROM messages reply JOIN messages parent ON parent.id = reply.parent_id
       WHERE reply.id = $replyId AND reply.role = 'assistant')`;

/** The gate, then (if it let the turn through) the turn's inputs: one statement, its text built once. */
const gated = (head: string) => `${head} SELECT gate.*, i.* FROM gate LEFT JOIN (${INPUTS}) i ON true`;
const GATED_INPUTS = { send: gated(GATED_SEND), regenerate: gated(GATED_REGENERATE) };

interface GateRow {
  granted: boolean;
  tokens: number;
  held: number;
  quota_reached: boolean;
  quota_resets_in: number;
}

/**
 * A reply's whole commit, in one statement (so one round trip and no transaction around it): the reply becomes the
 * kept alternative of its user message, the conversation moves to the top, its event goes to the outbox with the
 * reply's stored time (relays are woken), the stream slot goes back, and the user's profile takes the turn's
 * observations if it is still the one the turn read (else the caller merges them under the row lock).
 */
const COMMIT_REPLY = `
  WITH unkept AS (
    UPDATE messages SET selected = false WHERE parent_id = $parentId AND role = 'assistant' AND selected
  ), touched AS (
    UPDATE conversations SET updated_at = now() WHERE id = $conversationId
  ), reply AS (
    INSERT INTO messages (id, conversation_id, role, content, reasoning, parent_id, status, selected, finish_reason,
                          prompt_tokens, completion_tokens, ttft_ms, total_ms, checkpoint_id, safety_categories)
    VALUES ($id, $conversationId, 'assistant', $content, $reasoning, $parentId, $status, true, $finishReason,
            $promptTokens, $completionTokens, $ttftMs, $totalMs, $checkpointId, $safetyCategories)
    RETURNING created_at
  ), event AS (
    ${OUTBOX_INSERT}
    SELECT $eventId, $topic, $eventKey,
           jsonb_set($eventPayload::jsonb, $createdAtPath::text[],
                     to_jsonb(to_char(reply.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
           $eventHeaders::jsonb
      FROM reply
    RETURNING id
  ), slot AS (
    UPDATE turn_gates SET slots = slots - $slotId::text WHERE user_id = $userId AND $slotId::text <> ''
  ), profile AS (
    INSERT INTO user_profiles AS p (user_id, profile, user_turns_since_deep)
    SELECT $userId, $profile::jsonb, 1 WHERE $profile::jsonb IS NOT NULL
    ON CONFLICT (user_id) DO UPDATE
      SET profile = EXCLUDED.profile, updated_at = now(), user_turns_since_deep = p.user_turns_since_deep + 1
      WHERE p.inference_enabled AND p.profile = $seenProfile::jsonb
    RETURNING user_turns_since_deep
  )
  SELECT reply.created_at,
         (SELECT user_turns_since_deep FROM profile) AS user_turns_since_deep,
         (SELECT pg_notify($outboxChannel, '') FROM event) AS notified
    FROM reply`;

interface InputsRow {
  conversation: Record<string, unknown>;
  message: Record<string, unknown>;
  inserted: boolean;
  card: unknown;
  display_name: string;
  profile: Record<string, unknown> | null;
  user_turn: number;
  history: { role: MessageRole; content: string; created_at: string }[];
}

/** The reply as it is committed with its event. */
export interface ReplyRecord {
  id: string;
  conversationId: string;
  parentId: string;
  content: string;
  reasoning: string | null;
  status: 'complete' | 'cancelled';
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  ttftMs: number;
  totalMs: number;
  checkpointId: string;
  safetyCategories: string[];
}

/** What commits with a reply, besides the reply itself. */
export interface ReplyCommit {
  userId: string;
  /** Its event; the stored reply's time replaces the value at `createdAtPath` (a path in the event's JSON). */
  event: OutboxRow;
  createdAtPath: string[];
  /** The stream slot to give back; none for a reply without one. */
  slotId: string | undefined;
  /** The profile with the turn's observations, stored only if the stored one is still `seen` (null: no row). */
  profile: { merged: unknown; seen: unknown } | null;
}

export interface CommittedReply {
  saved: MessageEntity;
  /** The user's turns since the deep extraction, when the profile took the observations here; else null. */
  userTurnsSinceDeep: number | null;
}

/**
 * All SQL of the turn path: the one statement before the model call, the reply's commit, and swipes. The two big
 * statements run prepared (parsed and planned once per connection, not per turn).
 */
@Injectable()
export class TurnRepository implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly prepared: PreparedStatements,
  ) {}

  /** The first turn does not wait for the prepared statements' connection. */
  onApplicationBootstrap(): Promise<void> {
    return this.prepared.warm();
  }

  /** The turn's inputs; null when there is no such message or conversation for this user (or, for a send, a duplicate). */
  async inputs(userId: string, target: TurnTarget, historyLimit: number): Promise<TurnInputs | null> {
    const { sql, parameters } = named(TARGETS[target.kind] + INPUTS, { ...target, userId, historyLimit });
    const [row] = await this.prepared.query<InputsRow>(sql, parameters);
    return row ? toInputs(row) : null;
  }

  /**
   * The turn's inputs with the user's shared limits taken in the same statement (a send or a regeneration): a
   * refusal when the gate said no; otherwise as `inputs`, the slot and token taken even when no row came back (the
   * caller gives them back).
   */
  async gatedInputs(
    userId: string,
    target: Extract<TurnTarget, { kind: 'send' | 'regenerate' }>,
    historyLimit: number,
    gate: TurnGate,
  ): Promise<TurnInputs | GateRefusal | null> {
    const { sql, parameters } = named(GATED_INPUTS[target.kind], {
      ...target,
      ...gate,
      userId,
      historyLimit,
    });
    const [row] = await this.prepared.query<GateRow & Partial<InputsRow>>(sql, parameters);
    if (!row) throw new Error('the turn gate returned no row');
    if (!row.granted) {
      if (row.quota_reached)
        return { refused: 'quota_exceeded', retryAfterSeconds: Math.max(1, row.quota_resets_in) };
      return row.held >= gate.maxStreams
        ? { refused: 'too_many_streams', retryAfterSeconds: 1 }
        : {
            refused: 'rate_limited',
            retryAfterSeconds: Math.max(1, Math.ceil(((1 - row.tokens) * 60) / gate.ratePerMinute)),
          };
    }
    return row.conversation ? toInputs(row as InputsRow) : null;
  }

  /** The newest reply to a user message, if any. */
  latestReply(userMessageId: string): Promise<MessageEntity | null> {
    return this.db.getRepository(MessageEntity).findOne({
      where: { parentId: userMessageId, role: 'assistant' },
      order: { createdAt: 'DESC' },
    });
  }

  /** An assistant reply in one of the user's conversations, or null. */
  ownedReply(userId: string, replyId: string): Promise<MessageEntity | null> {
    return this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin(ConversationEntity, 'c', 'c.id = m.conversation_id')
      .where('m.id = :replyId AND m.role = :role AND c.user_id = :userId', {
        replyId,
        role: 'assistant',
        userId,
      })
      .getOne();
  }

  /** Commits the reply with everything that goes with it (COMMIT_REPLY), in one statement. */
  async commitReply(reply: ReplyRecord, commit: ReplyCommit): Promise<CommittedReply> {
    const { event, profile } = commit;
    const { sql, parameters } = named(COMMIT_REPLY, {
      ...reply,
      userId: commit.userId,
      slotId: commit.slotId ?? '',
      eventId: event.eventId,
      topic: event.topic,
      eventKey: event.key,
      eventPayload: event.payload,
      eventHeaders: event.headers,
      createdAtPath: commit.createdAtPath,
      profile: profile ? JSON.stringify(profile.merged) : null,
      seenProfile: profile?.seen ? JSON.stringify(profile.seen) : null,
      outboxChannel: OUTBOX_CHANNEL,
    });
    const [row] = await this.prepared.query<{ created_at: Date; user_turns_since_deep: number | null }>(
      sql,
      parameters,
    );
    if (!row) throw new Error('the reply was not stored');
    const saved = Object.assign(new MessageEntity(), {
      ...reply,
      role: 'assistant',
      selected: true,
      createdAt: row.created_at,
    });
    return { saved, userTurnsSinceDeep: row.user_turns_since_deep };
  }

  /** Keeps one alternative of a user message; returns the ids of the others. */
  keepAlternative<T>(
    reply: MessageEntity,
    alongside: (tx: EntityManager, rejected: string[]) => Promise<T>,
  ): Promise<T> {
    const parentId = reply.parentId;
    return this.db.transaction(async (tx) => {
      const messages = tx.getRepository(MessageEntity);
      const siblings = await messages.findBy({ parentId: parentId ?? '', role: 'assistant' });
      await messages.update({ parentId: parentId ?? '', role: 'assistant' }, { selected: false });
      await messages.update({ id: reply.id }, { selected: true });
      return alongside(
        tx,
        siblings.filter((s) => s.id !== reply.id).map((s) => s.id),
      );
    });
  }
}

/** Each statement's text with pg's `$n` placeholders and the names they stand for, worked out once. */
const compiled = new Map<string, { text: string; order: string[] }>();

/** `$name` placeholders as pg's `$n`, each name bound once. */
function named(sql: string, values: Record<string, unknown>): { sql: string; parameters: unknown[] } {
  let statement = compiled.get(sql);
  if (!statement) {
    const order: string[] = [];
    const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
      const at = order.indexOf(name);
      return `$${(at === -1 ? order.push(name) : at + 1).toString()}`;
    });
    statement = { text, order };
    compiled.set(sql, statement);
  }
  const parameters = statement.order.map((name) => {
    if (!(name in values)) throw new Error(`no value for $${name}`);
    return values[name];
  });
  return { sql: statement.text, parameters };
}

/**
 * row_to_json gives column names and ISO times: entities as TypeORM would have built them. Assigned, not made by
 * `EntityManager.create`, which walks the entity's metadata: 0.3 ms of CPU per turn (profile at 50 streams).
 */
function toInputs(row: InputsRow): TurnInputs {
  const c = row.conversation;
  const m = row.message;
  const p = row.profile;
  return {
    conversation: Object.assign(new ConversationEntity(), {
      id: c['id'] as string,
      userId: c['user_id'] as string,
      characterId: c['character_id'] as string,
      title: c['title'] as string | null,
      summary: c['summary'] as string | null,
      summaryThrough: c['summary_through'] ? new Date(c['summary_through'] as string) : null,
      director: c['director'] as DirectorNote | null,
      createdAt: new Date(c['created_at'] as string),
      updatedAt: new Date(c['updated_at'] as string),
    }),
    userMessage: Object.assign(new MessageEntity(), {
      id: m['id'] as string,
      conversationId: m['conversation_id'] as string,
      role: 'user',
      content: m['content'] as string,
      clientMessageId: m['client_message_id'] as string | null,
      parentId: m['parent_id'] as string | null,
      status: m['status'] as MessageStatus,
      selected: m['selected'] as boolean,
      userTurn: row.user_turn,
      createdAt: new Date(m['created_at'] as string),
    }),
    created: row.inserted,
    history: row.history.map((h) => ({
      role: h.role === 'user' ? 'user' : 'assistant',
      content: h.content,
      createdAt: new Date(h.created_at),
    })),
    userTurn: row.user_turn,
    card: row.card,
    userName: row.display_name,
    profile: p
      ? Object.assign(new UserProfileEntity(), {
          userId: p['user_id'] as string,
          profile: p['profile'] as UserProfileEntity['profile'],
          inferenceEnabled: p['inference_enabled'] as boolean,
          userTurnsSinceDeep: p['user_turns_since_deep'] as number,
          updatedAt: new Date(p['updated_at'] as string),
        })
      : null,
  };
}

export const isRefusal = (result: TurnInputs | GateRefusal | null): result is GateRefusal =>
  result !== null && 'refused' in result;
