import { z } from 'zod';
import { EMPATHY_AXES, HIDDEN_NEEDS, PERSONA_TYPES, PROFILE_POOLS } from './profile';
import { type LineError, parseJsonl } from './jsonl';

const text = z.string().trim().min(1);

/** What a new profile is built from: who the person is in outline; the model writes the rest. */
export const profileSeedSchema = z.strictObject({
  personaType: z.enum(PERSONA_TYPES),
  traits: z.array(text).length(3),
  topic: text,
  hiddenNeed: z.enum(HIDDEN_NEEDS),
  pool: z.enum(PROFILE_POOLS),
  /** Used as the profile id as is; without it the id is generated (profileIdFor). */
  id: text.optional(),
  /** The person's name, when it should not be left to the model. */
  name: text.optional(),
  dominantAxis: z.enum(EMPATHY_AXES).optional(),
});
export type ProfileSeed = z.infer<typeof profileSeedSchema>;

/** Reads a JSONL file of seeds; blank lines are skipped, a repeated explicit id is an error on the later line. */
export function parseSeedsJsonl(input: string): { seeds: ProfileSeed[]; errors: LineError[] } {
  const { items, errors } = parseJsonl(input, profileSeedSchema, (seed) => seed.id);
  return { seeds: items, errors };
}

const ID_WIDTH = 3;

/**
 * A generated id, `gen-<pool>-<hiddenNeed>-<n>` with n the seed's 1-based position, suffixed `-2`, `-3`… while it
 * is taken. An explicit seed id is returned as is: the caller checks it against existing ids.
 */
export function profileIdFor(seed: ProfileSeed, index: number, taken: ReadonlySet<string>): string {
  if (seed.id !== undefined) return seed.id;
  const base = `gen-${seed.pool}-${seed.hiddenNeed}-${String(index + 1).padStart(ID_WIDTH, '0')}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/**
 * Ids for a whole seeds file, in order: explicit ids are kept, generated ones avoid the existing ids, the explicit
 * ones and each other. The same seeds and existing ids always give the same ids, so a run can be resumed by id.
 */
export function assignProfileIds(seeds: readonly ProfileSeed[], existingIds: ReadonlySet<string>): string[] {
  const taken = new Set(existingIds);
  for (const seed of seeds) if (seed.id !== undefined) taken.add(seed.id);
  return seeds.map((seed, index) => {
    const id = profileIdFor(seed, index, taken);
    taken.add(id);
    return id;
  });
}
