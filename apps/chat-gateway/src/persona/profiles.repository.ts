import { MessageEntity, UserProfileEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, In } from 'typeorm';

/** The stored profile as a merge reads it under its row lock. */
export interface LockedProfile {
  profile: unknown;
  inferenceEnabled: boolean;
}

/** Users' stored profiles (user_profiles), one row per user. */
@Injectable()
export class ProfilesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  find(userId: string): Promise<UserProfileEntity | null> {
    return this.db.getRepository(UserProfileEntity).findOneBy({ userId });
  }

  /**
   * Replaces the profile with `update(stored)` under the row's lock (made empty first when there is none), so that
   * concurrent turns and extractions of one user each add their evidence instead of overwriting each other. The
   * user messages counted since the last deep extraction (reset when `resetsDeepCount`), or null when inference is
   * off (nothing is written).
   */
  lockAndUpdate(
    userId: string,
    empty: unknown,
    update: (stored: unknown) => unknown,
    resetsDeepCount: boolean,
  ): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      // The no-op DO UPDATE locks an existing row (and returns it) in the same statement that creates a new one.
      const [row] = (await tx.query(
        `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
         RETURNING profile, inference_enabled`,
        [userId, JSON.stringify(empty)],
      )) as { profile: unknown; inference_enabled: boolean }[];
      if (!row?.inference_enabled) return null;
      const [updated] = (await tx.query(
        `UPDATE user_profiles SET profile = $2, updated_at = now(),
           user_turns_since_deep = CASE WHEN $3 THEN 0 ELSE user_turns_since_deep + 1 END
         WHERE user_id = $1 RETURNING user_turns_since_deep`,
        [userId, JSON.stringify(update(row.profile)), resetsDeepCount],
      )) as [{ user_turns_since_deep: number }[], number];
      return updated[0]?.user_turns_since_deep ?? null;
    });
  }

  async reset(userId: string, empty: unknown): Promise<void> {
    await this.db.query(
      `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET profile = EXCLUDED.profile, user_turns_since_deep = 0,
         updated_at = now()`,
      [userId, JSON.stringify(empty)],
    );
  }

  /** Turning inference off also forgets what was inferred (the profile becomes `empty`). */
  async setInference(userId: string, enabled: boolean, empty: unknown): Promise<void> {
    await this.db.query(
      `INSERT INTO user_profiles (user_id, profile, inference_enabled) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET inference_enabled = EXCLUDED.inference_enabled,
         profile = CASE WHEN EXCLUDED.inference_enabled THEN user_profiles.profile ELSE EXCLUDED.profile END,
         updated_at = now()`,
      [userId, JSON.stringify(empty), enabled],
    );
  }

  /** Texts of the user's messages among `ids` still present (a deleted conversation takes its messages with it). */
  async messageTexts(userId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin('conversations', 'c', 'c.id = m.conversation_id')
      .select(['m.id', 'm.content'])
      .where({ id: In(ids) })
      .andWhere('c.user_id = :userId', { userId })
      .getMany();
    return new Map(rows.map((m) => [m.id, m.content]));
  }
}
