import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/**
 * The shared limits' rows (`turn_gates`) outside the turn's own statement, which takes them (TurnRepository): giving
 * back what a turn took, and renewing the slots of replies still streaming.
 */
@Injectable()
export class TurnGatesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Frees a slot (`slotId`; '' for none) and, when `token`, gives back a rate-limit token (capped at
   * `ratePerMinute`) and a turn of today's quota.
   */
  async giveBack(userId: string, slotId: string, token: boolean, ratePerMinute: number): Promise<void> {
    await this.db.query(
      `UPDATE turn_gates SET slots = slots - $2::text, tokens = least($3::float8, tokens + $4::int),
              quota_used = CASE WHEN quota_day = (now() AT TIME ZONE 'UTC')::date
                                THEN greatest(0, quota_used - $4::int) ELSE quota_used END
        WHERE user_id = $1`,
      [userId, slotId, ratePerMinute, token ? 1 : 0],
    );
  }

  /** Pushes the expiry of these users' slots to `ttlMs` from now; a slot already given back is not revived. */
  async renew(userIds: string[], slotIds: string[], ttlMs: number): Promise<void> {
    await this.db.query(
      `UPDATE turn_gates g SET slots = g.slots || (
         SELECT coalesce(jsonb_object_agg(key, extract(epoch FROM now()) * 1000 + $3::float8), '{}'::jsonb)
           FROM jsonb_object_keys(g.slots) key WHERE key = ANY($2::text[]))
        WHERE g.user_id = ANY($1::uuid[])`,
      [userIds, slotIds, ttlMs],
    );
  }
}
