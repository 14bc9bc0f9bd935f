import { ACCOUNT_CHANGES_CHANNEL, forgetUserEvents, notifyAccountChanged } from '@echoloop/platform';
import { type Role, UserEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** What an access token may do right now: the account as it is, and its sessions that can still be used. */
export interface AccountState {
  roles: Role[];
  disabled: boolean;
  /** Session id → when it ends if not refreshed; revoked sessions are absent. */
  sessions: Map<string, Date>;
}

export type RotateOutcome =
  /** `graced`: the token had been used a moment before, by a concurrent refresh of the same session. */
  | { outcome: 'rotated'; userId: string; sessionId: string; graced: boolean }
  /** Unknown token, or a session that has ended (revoked, expired, account disabled). */
  | { outcome: 'refused' }
  /** A used token came back after its grace: someone holds a copy, so the session was revoked. */
  | { outcome: 'reused'; userId: string; sessionId: string };

/**
 * The SQL of signing in and out: accounts by email, sessions and their refresh tokens. Whatever ends or starts a
 * session notifies ACCOUNT_CHANGES_CHANNEL in its own statement or transaction, so every replica's cached state
 * follows when it commits.
 */
@Injectable()
export class AuthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  findByEmail(email: string): Promise<UserEntity | null> {
    return this.db.getRepository(UserEntity).findOneBy({ email });
  }

  createUser(user: { email: string; passwordHash: string; displayName: string }): Promise<UserEntity> {
    const users = this.db.getRepository(UserEntity);
    return users.save(users.create({ ...user, roles: ['user'] }));
  }

  /** One round trip: the account with its usable sessions, or null when the account no longer exists. */
  async accountState(userId: string, now: Date): Promise<AccountState | null> {
    const [row] = await this.db.query<{ roles: Role[]; disabled: boolean; sessions: [string, string][] }[]>(
      `SELECT u.roles, u.disabled_at IS NOT NULL AS disabled,
              COALESCE((SELECT json_agg(json_build_array(s.id, s.expires_at)) FROM sessions s
                        WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > $2), '[]') AS sessions
         FROM users u WHERE u.id = $1`,
      [userId, now],
    );
    if (!row) return null;
    return {
      roles: row.roles,
      disabled: row.disabled,
      sessions: new Map(row.sessions.map(([id, expiresAt]) => [id, new Date(expiresAt)])),
    };
  }

  /** A new session with its first refresh token, in one statement. */
  async startSession(userId: string, refreshHash: string, expiresAt: Date): Promise<string> {
    const [{ id }] = await this.db.query<[{ id: string }]>(
      `WITH session AS (
         INSERT INTO sessions (user_id, expires_at) VALUES ($1, $3) RETURNING id
       ), token AS (
         INSERT INTO refresh_tokens (token_hash, session_id) SELECT $2, id FROM session
       )
       SELECT id, pg_notify($4, $1::text) FROM session`,
      [userId, refreshHash, expiresAt, ACCOUNT_CHANGES_CHANNEL],
    );
    return id;
  }

  /**
   * Uses a refresh token once: marks it used, stores its successor and moves the session's expiry, under the
   * token's and session's row locks, so that two refreshes with one token run one after the other. A used token
   * back within `graceMs` of its use (a concurrent tab) gets a successor of its own; any other reuse revokes the
   * session.
   */
  rotate(
    tokenHash: string,
    nextHash: string,
    now: Date,
    expiresAt: Date,
    graceMs: number,
  ): Promise<RotateOutcome> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<
        {
          session_id: string;
          user_id: string;
          used_at: Date | null;
          ended: boolean;
        }[]
      >(
        `SELECT t.session_id, s.user_id, t.used_at,
                (s.revoked_at IS NOT NULL OR s.expires_at <= $2 OR u.disabled_at IS NOT NULL) AS ended
           FROM refresh_tokens t
           JOIN sessions s ON s.id = t.session_id
           JOIN users u ON u.id = s.user_id
          WHERE t.token_hash = $1
          FOR UPDATE OF t, s`,
        [tokenHash, now],
      );
      if (!row || row.ended) return { outcome: 'refused' };
      const usedAt = row.used_at;
      if (usedAt && !(await this.inGrace(tx, tokenHash, row.session_id, usedAt, now, graceMs))) {
        await this.revokeIn(tx, `id = $1`, [row.session_id], row.user_id, 'refresh_reuse', now);
        return { outcome: 'reused', userId: row.user_id, sessionId: row.session_id };
      }
      // In grace used_at stays: the grace counts from the first use, so it cannot be stretched by reusing.
      if (!usedAt) {
        await tx.query(`UPDATE refresh_tokens SET used_at = $2 WHERE token_hash = $1`, [tokenHash, now]);
      }
      await tx.query(`INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($1, $2)`, [
        nextHash,
        row.session_id,
      ]);
      await tx.query(`UPDATE sessions SET refreshed_at = $2, expires_at = $3 WHERE id = $1`, [
        row.session_id,
        now,
        expiresAt,
      ]);
      return { outcome: 'rotated', userId: row.user_id, sessionId: row.session_id, graced: usedAt !== null };
    });
  }

  /** Ends one session of the user (logout); false when it had already ended. */
  revokeSession(userId: string, sessionId: string, reason: string, now: Date): Promise<boolean> {
    return this.db.transaction((tx) =>
      this.revokeIn(tx, `id = $1 AND user_id = $2`, [sessionId, userId], userId, reason, now),
    );
  }

  /** Ends every session of the user (logout everywhere). */
  revokeAllSessions(userId: string, reason: string, now: Date): Promise<boolean> {
    return this.db.transaction((tx) => this.revokeIn(tx, `user_id = $1`, [userId], userId, reason, now));
  }

  /**
   * Erasure: the account, by cascade its sessions and everything the user produced, its events' payloads, and every
   * stored export holding it.
   */
  async eraseAccount(userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Stored exports holding the user are erased (their files are removed by the export runner).
      await tx.query(
        `UPDATE dataset_exports SET status = 'erased'
          WHERE id IN (SELECT export_id FROM dataset_export_users WHERE user_id = $1)`,
        [userId],
      );
      // Personal keys go with the account (their names are the user's words); staff keys it minted stop working
      // by themselves (ApiKeysService checks their owner on every request) and stay listed for the audit trail.
      await tx.query(`DELETE FROM api_keys WHERE created_by = $1 AND kind = 'personal'`, [userId]);
      await tx.query(`DELETE FROM users WHERE id = $1`, [userId]);
      await forgetUserEvents(tx, userId);
      await notifyAccountChanged(tx, userId);
    });
  }

  /**
   * Whether a token used at `usedAt` may renew its session once more: only a moment after its use, and only while
   * no token of the session has been used since. A concurrent tab comes back before its sibling refreshes again;
   * once a newer token was used, the old one coming back is a copy. This is its own statement (a fresh snapshot),
   * so that it sees rotations committed while the locking SELECT waited.
   */
  private async inGrace(
    tx: EntityManager,
    tokenHash: string,
    sessionId: string,
    usedAt: Date,
    now: Date,
    graceMs: number,
  ): Promise<boolean> {
    if (now.getTime() - usedAt.getTime() >= graceMs) return false;
    // At the same instant counts as since: a tie ends the session rather than renew it.
    const [{ moved_on: movedOn }] = await tx.query<[{ moved_on: boolean }]>(
      `SELECT EXISTS (SELECT 1 FROM refresh_tokens
                       WHERE session_id = $1 AND used_at >= $2 AND token_hash <> $3) AS moved_on`,
      [sessionId, usedAt, tokenHash],
    );
    return !movedOn;
  }

  private async revokeIn(
    tx: EntityManager,
    where: string,
    params: unknown[],
    userId: string,
    reason: string,
    now: Date,
  ): Promise<boolean> {
    const n = params.length;
    const [rows] = await tx.query<[unknown[], number]>(
      `UPDATE sessions SET revoked_at = $${n + 1}, revoked_reason = $${n + 2}
        WHERE ${where} AND revoked_at IS NULL RETURNING id`,
      [...params, now, reason],
    );
    if (rows.length === 0) return false;
    await notifyAccountChanged(tx, userId);
    return true;
  }
}
