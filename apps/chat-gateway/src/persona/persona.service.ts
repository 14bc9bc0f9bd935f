import {
  confidenceAt,
  emptyProfile,
  extractFastFeatures,
  mergeObservations,
  personaGuidance,
  profileSnapshot,
  userProfileSchema,
  type UserProfile,
} from '@echoloop/persona';
import { UserProfileEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';

export interface PersonaUpdate {
  /** Null when the user turned inference off. */
  profile: UserProfile | null;
  guidance: string;
  snapshot: Record<string, unknown>;
}

const OFF: PersonaUpdate = { profile: null, guidance: '', snapshot: {} };

/**
 * The live persona: each user message updates the user's profile with fast, in-process features (no model
 * call), the profile's confident parts become guidance in the prompt, and the updated profile is saved with the
 * turn. Users can read it (with the evidence), reset it, or turn inference off.
 */
@Injectable()
export class PersonaService {
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
    const profile = mergeObservations(this.parse(row), observations, now);
    return { profile, guidance: personaGuidance(profile, { now }), snapshot: profileSnapshot(profile, now) };
  }

  /** Saves the profile inside the turn's transaction (unless the user turned inference off meanwhile). */
  async save(manager: EntityManager, userId: string, profile: UserProfile): Promise<void> {
    await manager.query(
      `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()
       WHERE user_profiles.inference_enabled`,
      [userId, JSON.stringify(profile)],
    );
  }

  /** What was inferred, how sure it is now, and which messages it rests on. */
  async view(userId: string) {
    const row = await this.profiles.findOneBy({ userId });
    const profile = this.parse(row);
    const now = new Date();
    const fields = Object.fromEntries(
      Object.entries(profile)
        .filter(([name]) => name !== 'schemaVersion')
        .map(([name, field]) => {
          const { value, evidence, updatedAt } = field as {
            value: unknown;
            evidence: string[];
            updatedAt: string;
          };
          return [
            name,
            { value, confidence: confidenceAt(profile, name as never, now), evidence, updatedAt },
          ];
        }),
    );
    return { inferenceEnabled: row?.inferenceEnabled ?? true, fields, updatedAt: row?.updatedAt ?? null };
  }

  async reset(userId: string): Promise<void> {
    await this.profiles.query(
      `INSERT INTO user_profiles (user_id, profile) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET profile = EXCLUDED.profile, updated_at = now()`,
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

  private parse(row: UserProfileEntity | null): UserProfile {
    const parsed = row ? userProfileSchema.safeParse(row.profile) : undefined;
    return parsed?.success ? parsed.data : emptyProfile();
  }
}
