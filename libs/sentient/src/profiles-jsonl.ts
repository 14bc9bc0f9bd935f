import { type LineError, parseJsonl } from './jsonl';
import { type SentientProfile, sentientProfileSchema } from './profile';

/** Reads a JSONL file of profiles in our schema (blank lines skipped, a repeated id an error on the later line). */
export function parseProfilesJsonl(text: string): { profiles: SentientProfile[]; errors: LineError[] } {
  const { items, errors } = parseJsonl(text, sentientProfileSchema, (profile) => profile.id);
  return { profiles: items, errors };
}
