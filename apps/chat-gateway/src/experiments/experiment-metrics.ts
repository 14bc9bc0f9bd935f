import type { GuardrailDirection } from '@echoloop/experiments';

/**
 * The metrics an experiment reports, per user (each user's value is the mean over their turns). The reward
 * labeller feeds them as it finishes each turn (see apps/reward-labeller experiment projection).
 */
export const EXPERIMENT_METRICS: readonly { name: string; guardrail?: GuardrailDirection }[] = [
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
];
