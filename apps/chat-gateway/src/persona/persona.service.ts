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
import type { UserProfileEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { ParseMemo } from '../common/parse-memo';
import { ProfilesRepository } from './profiles.repository';

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

  constructor(private readonly profiles: ProfilesRepository) {}

  /** The stored profile row (loaded alongside the rest of a turn's context). */
  load(userId: string): Promise<UserProfileEntity | null> {
    return this.profiles.find(userId);
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

  /**
   * Merges observations (a user turn's unless `counts` says otherwise) into the stored profile under its row lock,
   * so that concurrent turns and extractions of one user each add their evidence. Returns the user messages counted
   * since the last deep extraction, or null when inference is off.
   */
  mergeNow(
    userId: string,
    observations: readonly Observation[],
    counts: 'user-turn' | 'deep-extraction' = 'user-turn',
  ): Promise<number | null> {
    return this.profiles.lockAndUpdate(
      userId,
      emptyProfile(),
      (stored) => mergeObservations(parseProfile(stored), observations, new Date()),
      counts === 'deep-extraction',
    );
  }

  /** What was inferred, how sure it is now, and the messages it rests on (with their text, the user's own). */
  async view(userId: string) {
    const row = await this.profiles.find(userId);
    const profile = parseProfile(row?.profile);
    const now = new Date();
    const { schemaVersion: _version, ...inferred } = profile;
    const entries = Object.entries(inferred) as [string, FieldBase<unknown>][];
    const texts = await this.profiles.messageTexts(userId, [
      ...new Set(entries.flatMap(([, f]) => f.evidence)),
    ]);
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

  reset(userId: string): Promise<void> {
    return this.profiles.reset(userId, emptyProfile());
  }

  /** Turning inference off also forgets what was inferred; turning it on starts from an empty profile. */
  setInference(userId: string, enabled: boolean): Promise<void> {
    return this.profiles.setInference(userId, enabled, emptyProfile());
  }
}

function parseProfile(stored: unknown): UserProfile {
  const parsed = stored === undefined ? undefined : userProfileSchema.safeParse(stored);
  return parsed?.success ? parsed.data : emptyProfile();
}
