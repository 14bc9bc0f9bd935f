import { parseProfilesJsonl, type SentientProfile } from '@echoloop/sentient';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './output';

/** The training pool's profiles (the simulator refuses benchmark ones, which only the gate plays). */
export function trainProfiles(): SentientProfile[] {
  const text = readFileSync(path.join(ROOT, 'data/sentient/profiles.jsonl'), 'utf8');
  const profiles = parseProfilesJsonl(text).profiles.filter((p) => p.pool === 'train');
  if (profiles.length === 0) throw new Error('no training-pool profile in data/sentient/profiles.jsonl');
  return profiles;
}
