import { DEFAULT_REWARD_CONFIG, type Parsed, type RewardConfig } from '@echoloop/rewards';
import { z } from 'zod';
import { jsonSchemaOf, parseJsonOutput } from './json-output';
import { clampDelta } from './state';

// Length caps go into the JSON schema too, so guided decoding cannot run a field past the token budget.
const text = (max: number) => z.string().trim().min(1).max(max);

/** The analyser's answer: what the companion meant, fit to the hidden need, inner activity, feeling, change. */
export const analyserOutputSchema = z.object({
  content: text(400),
  goalFit: text(400),
  innerActivity: text(400),
  feeling: text(200),
  change: z.int(),
});
export type AnalyserOutput = z.infer<typeof analyserOutputSchema>;

/** The actor's answer: attitude and plan, a first draft, the realistic rewrite that is sent, and whether it ends. */
export const actorOutputSchema = z.object({
  thinking: text(400),
  draft: z.string().max(600),
  response: text(600),
  goodbye: z.boolean(),
});
export type ActorOutput = z.infer<typeof actorOutputSchema>;

export const analyserJsonSchema: Record<string, unknown> = jsonSchemaOf(analyserOutputSchema);
export const actorJsonSchema: Record<string, unknown> = jsonSchemaOf(actorOutputSchema);

export type ParsedAnalysis = AnalyserOutput & { rawChange: number };

/** The analyser's JSON; `change` must be an integer and is clamped to ±maxDelta (`rawChange` keeps it as written). */
export function parseAnalyserOutput(
  text: string,
  config: RewardConfig = DEFAULT_REWARD_CONFIG,
): Parsed<ParsedAnalysis> {
  const parsed = parseJsonOutput(text, analyserOutputSchema);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    value: {
      ...parsed.value,
      change: clampDelta(parsed.value.change, config),
      rawChange: parsed.value.change,
    },
  };
}

export function parseActorOutput(text: string): Parsed<ActorOutput> {
  return parseJsonOutput(text, actorOutputSchema);
}
