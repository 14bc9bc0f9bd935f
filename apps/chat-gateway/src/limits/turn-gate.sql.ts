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
export const GATE = `
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

export interface GateRow {
  granted: boolean;
  tokens: number;
  held: number;
  quota_reached: boolean;
  quota_resets_in: number;
}

/** Why the gate said no, from its row. */
export function refusalOf(row: GateRow, gate: TurnGate): GateRefusal {
  if (row.quota_reached)
    return { refused: 'quota_exceeded', retryAfterSeconds: Math.max(1, row.quota_resets_in) };
  return row.held >= gate.maxStreams
    ? { refused: 'too_many_streams', retryAfterSeconds: 1 }
    : {
        refused: 'rate_limited',
        retryAfterSeconds: Math.max(1, Math.ceil(((1 - row.tokens) * 60) / gate.ratePerMinute)),
      };
}

export const isRefusal = <T extends object>(result: T | GateRefusal | null): result is GateRefusal =>
  result !== null && 'refused' in result;
