import type { GuardrailDirection } from './guardrail';

/**
 * The one registry of experiment metrics: the reward labeller writes these names as it finishes each turn, the
 * gateway's results read them. Per user, each user's value is the mean over their turns (or a flag).
 */
export const EXPERIMENT_METRICS = [
  { name: 'composite' },
  { name: 'empathy' },
  { name: 'humanlike' },
  { name: 'live_emotion' },
  { name: 'live_emotion_delta' },
  { name: 'implicit' },
  { name: 'thumbs_up' },
  { name: 'regenerated' },
  { name: 'turns_per_conversation' },
  { name: 'next_day_return' },
  { name: 'ttft_ms', guardrail: 'increase_is_bad' },
  { name: 'safety_flagged', guardrail: 'increase_is_bad' },
] as const satisfies readonly { name: string; guardrail?: GuardrailDirection }[];

export type ExperimentMetric = (typeof EXPERIMENT_METRICS)[number]['name'];

const NAMES = new Set<string>(EXPERIMENT_METRICS.map((m) => m.name));
export const isExperimentMetric = (name: string): name is ExperimentMetric => NAMES.has(name);
