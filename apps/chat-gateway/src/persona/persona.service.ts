import {
  confidenceAt,
  emptyProfile,
  type FieldBase,
  extractFastFeatures,
  fastFeaturesShifted,
  type Observation,
  mergeObservations,
  personaGuidance,
  profileSnapshot,
  userProfileSchema,
  type UserProfile,
} from '@echoloop/persona';
import { MessageEntity, UserProfileEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { In } from 'typeorm';
import { ParseMemo } from '../common/parse-memo';

export interface PersonaUpdate {
  /** False when the user turned inference off: nothing is observed or stored. */
  enabled: boolean;
  /** What this message showed: merged again under a row lock when saved, so concurrent turns lose nothing. */
  observations: Observation[];
  /** Whether the message moved a situation field (emotion, need, axis, initiative). */
  shifted: boolean;
  guidance: string;
  snapshot: Record<string, unknown>;
  /** The profile with this message's observations merged in, as the turn will store it (none when off). */
  merged?: UserProfile;
}

const OFF: PersonaUpdate = { enabled: false, observations: [], shifted: false, guidance: '', snapshot: {} };

/**
 * The live persona: each user message updates the user's profile with fast, in-process features (no model
 * call), the profile's confident parts become guidance in the prompt, and the observations are merged into the
 * stored profile with the turn. Users can read it (with the evidence), reset it, or turn inference off.
 */
@Injectable()
export class PersonaService {
  /**
   * The profile the last turn merged (a merge of a valid profile is valid), which the next turn's early start reads,
   * is not parsed again. By identity only: the stored profile changes with every turn, so its text never repeats.
   */
  private readonly profilesRead = new ParseMemo(parseProfile, 0);

  constructor(
    @InjectRepository(UserProfileEntity) private readonly profiles: Repository<UserProfileEntity>,
  ) {}

  /** The stored profile row (loaded alongside the rest of a turn's context). */
  load(userId: string): Promise<UserProfileEntity | null> {
    return this.profiles.findOneBy({ userId });
  }

  /** The profile after this message, with the guidance and snapshot for this turn: in-process, no I/O. */
  observe(
    row: UserProfileEntity | null,
    message: { id: string; content: string; createdAt: Date },
    previousAssistantMessage: string | undefined,
  ): PersonaUpdate {
    if (row && !row.inferenceEnabled) return OFF;
    const now = new Date();
    const observations = extractFastFeatures(
      { id: message.id, text: message.content, createdAt: message.createdAt },
      previousAssistantMessage === undefined ? {} : { previousAssistantMessage },
    );
    const before = this.profilesRead.get(row?.profile);
    const profile = mergeObservations(before, observations, now);
    this.profilesRead.vouch(profile);
    return {
      enabled: true,
      observations,
      shifted: fastFeaturesShifted(before, profile),
      guidance: personaGuidance(profile, { now }),
      snapshot: profileSnapshot(profile, now),
      merged: profile,
    };
  }

  /** `merge` in a transaction of its own (a user turn's observations unless `counts` says otherwise). */
  mergeNow(
    userId: string,
    observations: readonly Observation[],
    counts: 'user-turn' | 'deep-extraction' = 'user-turn',
  ): Promise<number | null> {
    return this.profiles.manager.transaction((tx) => this.merge(tx, userId, observations, counts));
  }

  /**
   * Merges observations into the stored profile inside `manager`'s transaction, holding the row lock, so that
   * concurrent turns and extractions of one user each add their evidence instead of overwriting each other.
   * Returns the user messages counted since the last deep extraction, or null when inference is off.
   */
  async merge(
    manager: EntityManager,
    userId: string,
    observations: readonly Observation[],
    counts: 'user-turn' | 'deep-extraction',
  ): Promise<number | null> {
    // The no-op DO UPDATE locks an existing row (and returns it) in the same statement that creates a new one.
    const [row] = (await manager.query(
      `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET user_id = EXCLUDED.user_id
       RETURNING profile, inference_enabled`,
      [userId, JSON.stringify(emptyProfile())],
    )) as { profile: unknown; inference_enabled: boolean }[];
    if (!row?.inference_enabled) return null;
    const profile = mergeObservations(parseProfile(row.profile), observations, new Date());
    const [updated] = (await manager.query(
      `UPDATE user_profiles SET profile = $2, updated_at = now(),
         user_turns_since_deep = CASE WHEN $3 THEN 0 ELSE user_turns_since_deep + 1 END
       WHERE user_id = $1 RETURNING user_turns_since_deep`,
      [userId, JSON.stringify(profile), counts === 'deep-extraction'],
    )) as [{ user_turns_since_deep: number }[], number];
    return updated[0]?.user_turns_since_deep ?? null;
  }

  /** What was inferred, how sure it is now, and the messages it rests on (with their text, the user's own). */
  async view(userId: string) {
    const row = await this.profiles.findOneBy({ userId });
    const profile = parseProfile(row?.profile);
    const now = new Date();
    const { schemaVersion: _version, ...inferred } = profile;
    const entries = Object.entries(inferred) as [string, FieldBase<unknown>][];
    const texts = await this.evidenceTexts(userId, [...new Set(entries.flatMap(([, f]) => f.evidence))]);
    const fields = Object.fromEntries(
      entries.map(([name, { value, evidence, updatedAt }]) => [
        name,
        {
          value,
          confidence: confidenceAt(profile, name as never, now),
          evidence: evidence.map((id) => ({ messageId: id, text: texts.get(id) ?? null })),
          updatedAt,
        },
      ]),
    );
    return { inferenceEnabled: row?.inferenceEnabled ?? true, fields, updatedAt: row?.updatedAt ?? null };
  }

  async reset(userId: string): Promise<void> {
    await this.profiles.query(
      `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET profile = EXCLUDED.profile, user_turns_since_deep = 0,
         updated_at = now()`,
      [userId, JSON.stringify(emptyProfile())],
    );
  }

  /** Turning inference off also forgets what was inferred; turning it on starts from an empty profile. */
  async setInference(userId: string, enabled: boolean): Promise<void> {
    await this.profiles.query(
      `INSERT INTO user_profiles (user_id, profile, inference_enabled) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET inference_enabled = EXCLUDED.inference_enabled,
         profile = CASE WHEN EXCLUDED.inference_enabled THEN user_profiles.profile ELSE EXCLUDED.profile END,
         updated_at = now()`,
      [userId, JSON.stringify(emptyProfile()), enabled],
    );
  }

  /** Texts of the evidence messages still present (a deleted conversation takes its messages with it). */
  private async evidenceTexts(userId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.profiles.manager
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

function parseProfile(stored: unknown): UserProfile {
  const parsed = stored === undefined ? undefined : userProfileSchema.safeParse(stored);
  return parsed?.success ? parsed.data : emptyProfile();
}
