import {
  ConversationEntity,
  type ClientSpeakers,
  type DirectorNote,
  MessageEntity,
  type MessageRole,
  type MessageStatus,
  UserProfileEntity,
} from '@echoloop/persistence';
import { GATE } from '../limits/turn-gate.sql';
import type { TurnInputs } from '../conversations/turn-inputs';

/* What a turn reads, in the statement before the model call: its target message, the history, card and profile. */

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
export const INPUTS = `
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
export const TARGETS: Record<TurnTarget['kind'], string> = {
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

/** The gate (limits/turn-gate.sql.ts), then (if it let the turn through) the turn's inputs: one statement. */
const gated = (head: string) => `${head} SELECT gate.*, i.* FROM gate LEFT JOIN (${INPUTS}) i ON true`;
export const GATED_INPUTS = { send: gated(GATED_SEND), regenerate: gated(GATED_REGENERATE) };

export interface InputsRow {
  conversation: Record<string, unknown>;
  message: Record<string, unknown>;
  inserted: boolean;
  card: unknown;
  display_name: string;
  profile: Record<string, unknown> | null;
  user_turn: number;
  history: { role: MessageRole; content: string; created_at: string }[];
}

/**
 * row_to_json gives column names and ISO times: entities as TypeORM would have built them. Assigned, not made by
 * `EntityManager.create`, which walks the entity's metadata: 0.3 ms of CPU per turn (profile at 50 streams).
 */
export function toInputs(row: InputsRow): TurnInputs {
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
      clientName: c['client_name'] as string | null,
      clientSystemPrompt: c['client_system_prompt'] as string | null,
      clientThreadKey: c['client_thread_key'] as string | null,
      clientPersonaGuidance: c['client_persona_guidance'] as boolean,
      clientSpeakers: c['client_speakers'] as ClientSpeakers | null,
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
