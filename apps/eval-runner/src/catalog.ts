import { characterCardSchema, type CharacterCard } from '@echoloop/character-cards';
import { parseProfilesJsonl, type SentientProfile } from '@echoloop/sentient';
import { Inject, Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { EvalRunnerEnv } from './env';
import { EVAL_RUNNER_ENV } from './tokens';

/** The simulated users' profiles and the character the policy plays, read once at start (a bad file stops it). */
@Injectable()
export class SentientCatalog {
  readonly profiles: readonly SentientProfile[];
  readonly card: CharacterCard;
  private readonly byId: Map<string, SentientProfile>;

  constructor(@Inject(EVAL_RUNNER_ENV) env: EvalRunnerEnv) {
    const parsed = parseProfilesJsonl(readFileSync(env.PROFILES_FILE, 'utf8'));
    if (parsed.errors.length > 0)
      throw new Error(`${env.PROFILES_FILE}: ${parsed.errors.length} invalid lines`);
    this.profiles = parsed.profiles;
    this.byId = new Map(parsed.profiles.map((p) => [p.id, p]));
    this.card = characterCardSchema.parse(JSON.parse(readFileSync(env.CHARACTER_CARD_FILE, 'utf8')));
  }

  profile(id: string): SentientProfile | undefined {
    return this.byId.get(id);
  }
}
