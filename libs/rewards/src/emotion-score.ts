import { type RewardConfig } from './config';

export type EmotionBucket = 'S' | 'A' | 'B' | 'C' | 'F';

/** RLVER/SAGE emotion states, highest first: a score belongs to the first bucket whose `min` it reaches. */
export const EMOTION_BUCKETS: readonly { bucket: EmotionBucket; min: number }[] = [
  { bucket: 'S', min: 100 },
  { bucket: 'A', min: 70 },
  { bucket: 'B', min: 40 },
  { bucket: 'C', min: 10 },
  { bucket: 'F', min: Number.NEGATIVE_INFINITY },
];

export function emotionBucket(score: number): EmotionBucket {
  return EMOTION_BUCKETS.find((entry) => score >= entry.min)?.bucket ?? 'F';
}

/**
 * The next emotion score: capped at maxScore but, as in RLVER/SAGE, with no floor. A score can sink below 0; it is
 * already bucket F, and keeping the depth shows how far a dialogue fell.
 */
export function applyEmotionDelta(score: number, delta: number, config: RewardConfig): number {
  return Math.min(score + delta, config.liveEmotion.maxScore);
}

/** The per-turn live-emotion reward: the change as a share of the largest allowed, in [-1, 1]. */
export function liveEmotionReward(delta: number, config: RewardConfig): number {
  const share = delta / config.liveEmotion.maxDelta;
  return Math.max(-1, Math.min(1, share)) + 0;
}

/** The live-emotion reward recorded when the user leaves without a next message. */
export function leftReward(config: RewardConfig): number {
  return config.liveEmotion.leftValue;
}
