import type { MessageEntity } from '@echoloop/persistence';
import { OUTBOX_INSERT, type OutboxRow } from '@echoloop/platform';

/**
 * A reply's whole commit, in one statement (so one round trip and no transaction around it): the reply becomes the
 * kept alternative of its user message, the conversation moves to the top, its event goes to the outbox with the
 * reply's stored time (relays are woken), the stream slot goes back, and the user's profile takes the turn's
 * observations if it is still the one the turn read (else the caller merges them under the row lock).
 */
export const COMMIT_REPLY = `
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
