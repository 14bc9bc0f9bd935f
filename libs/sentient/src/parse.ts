import { DEFAULT_REWARD_CONFIG, type Parsed, type RewardConfig } from '@echoloop/rewards';
import { z } from 'zod';
import { jsonSchemaOf, parseJsonOutput } from './json-output';
import { clampDelta } from './state';

const text = z.string().trim().min(1);

/** The analyser's answer: what the companion meant, fit to the hidden need, inner activity, feeling, change. */
export const analyserOutputSchema = z.object({
  content: text,
  goalFit: text,
  innerActivity: text,
  feeling: text,
  change: z.int(),
});
export type AnalyserOutput = z.infer<typeof analyserOutputSchema>;

/** The actor's answer: attitude and plan, a first draft, the realistic rewrite that is sent, and whether it ends. */
export const actorOutputSchema = z.object({
  thinking: text,
  draft: z.string(),
  response: text,
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
