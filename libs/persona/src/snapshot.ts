import { z } from 'zod';
import { confidenceAt } from './current-confidence';
import { type FieldName, isCategoricalField, isNumericField } from './fields';
import { type UserProfile } from './profile';

const snapshotEntrySchema = z.object({
  value: z.union([z.number(), z.string()]),
  confidence: z.number().min(0).max(1),
});

/** The compact profile that travels in `chat.turn.completed.v1` as `personaSnapshot`: values and confidences. */
export const profileSnapshotSchema = z.object({
  schemaVersion: z.literal(1),
  fields: z.record(z.string(), snapshotEntrySchema),
});
export type ProfileSnapshot = z.infer<typeof profileSnapshotSchema>;

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Every field present in the profile, values rounded to two decimals, without evidence. With `now`, confidences
 * are decayed to that moment; without it they are as stored.
 */
export function profileSnapshot(profile: UserProfile, now?: Date): ProfileSnapshot {
  const fields: ProfileSnapshot['fields'] = {};
  for (const name of Object.keys(profile)) {
    if (!isProfileField(name)) continue;
    const field = profile[name];
    if (!field) continue;
    fields[name] = {
      value: typeof field.value === 'number' ? round(field.value) : field.value,
      confidence: round(now ? confidenceAt(profile, name, now) : field.confidence),
    };
  }
  return { schemaVersion: 1, fields };
}

function isProfileField(name: string): name is FieldName | 'mbtiType' {
  return name === 'mbtiType' || isNumericField(name) || isCategoricalField(name);
}
