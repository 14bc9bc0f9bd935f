import {
  applyEmotionDelta,
  DEFAULT_REWARD_CONFIG,
  type EmotionBucket,
  emotionBucket,
  type RewardConfig,
} from '@echoloop/rewards';

/** SAGE evaluation starts at 40 (bucket B); RLVER training at 30 (bucket C). */
export const SAGE_START_SCORE = 40;
export const RLVER_TRAIN_START_SCORE = 30;
/** SAGE evaluation allows at most 10 policy (NPC) turns. */
export const SAGE_MAX_POLICY_TURNS = 10;
/** Below this score the user is gone (bucket F); SAGE ends the episode there. */
export const SAGE_MIN_SCORE = 10;

export interface EpisodeState {
  score: number;
  bucket: EmotionBucket;
}

export type EndReason = 'goodbye' | 'score_max' | 'score_min' | 'max_turns';

export function initialState(startScore = SAGE_START_SCORE): EpisodeState {
  return { score: startScore, bucket: emotionBucket(startScore) };
}

/** A delta clamped to ±maxDelta (10 by default), as SAGE does. */
export function clampDelta(delta: number, config: RewardConfig = DEFAULT_REWARD_CONFIG): number {
  const max = config.liveEmotion.maxDelta;
  return Math.max(-max, Math.min(max, Math.trunc(delta))) + 0;
}

/** One analyser verdict applied: the delta clamped, the score capped at 100 (no floor), the bucket recomputed. */
export function applyTurn(
  state: EpisodeState,
  delta: number,
  config: RewardConfig = DEFAULT_REWARD_CONFIG,
): EpisodeState {
  const score = applyEmotionDelta(state.score, clampDelta(delta, config), config);
  return { score, bucket: emotionBucket(score) };
}

export interface EndCheck {
  /** The actor's structured goodbye flag (never a substring match on the text). */
  goodbye: boolean;
  /** Policy turns taken so far, this one included. */
  policyTurns: number;
  maxPolicyTurns?: number;
}

/** SAGE's stop rule (§1.4), checked after each turn in this order: goodbye, ≥ 100, < 10, turn limit. */
export function endCondition(
  state: EpisodeState,
  check: EndCheck,
  config: RewardConfig = DEFAULT_REWARD_CONFIG,
): EndReason | null {
  if (check.goodbye) return 'goodbye';
  if (state.score >= config.liveEmotion.maxScore) return 'score_max';
  if (state.score < SAGE_MIN_SCORE) return 'score_min';
  if (check.policyTurns >= (check.maxPolicyTurns ?? SAGE_MAX_POLICY_TURNS)) return 'max_turns';
  return null;
}

/** RLVER's sparse terminal reward: `max(score / 100, 0)`. */
export function episodeReward(score: number, config: RewardConfig = DEFAULT_REWARD_CONFIG): number {
  return Math.max(score / config.liveEmotion.maxScore, 0);
}
