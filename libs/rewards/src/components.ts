export const COMPONENTS = ['empathy', 'humanlike', 'live_emotion', 'implicit'] as const;
export type RewardComponent = (typeof COMPONENTS)[number];
