import { z } from 'zod';
import { type SentientProfile, sentientProfileSchema } from './profile';

export interface LineError {
  /** 1-based line number. */
  line: number;
  error: string;
}

/**
 * Reads a JSONL file of profiles in our schema: every valid line becomes a profile, every invalid one an error.
 * Blank lines are skipped; a repeated id is an error on the later line.
 */
export function parseProfilesJsonl(text: string): { profiles: SentientProfile[]; errors: LineError[] } {
  const profiles: SentientProfile[] = [];
  const errors: LineError[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      errors.push({ line, error: `not JSON: ${(error as Error).message}` });
      return;
    }
    const result = sentientProfileSchema.safeParse(json);
    if (!result.success) {
      errors.push({ line, error: z.prettifyError(result.error) });
    } else if (seen.has(result.data.id)) {
      errors.push({ line, error: `duplicate id "${result.data.id}"` });
    } else {
      seen.add(result.data.id);
      profiles.push(result.data);
    }
  });
  return { profiles, errors };
}
