import { z } from 'zod';
import { COMPONENTS } from './components';

// A label must be something the verdict parser can read back (`[\w-]+`).
const labelSchema = z.string().regex(/^[\w-]+$/, 'labels are letters, digits, _ or -');

function labelMap(defaults: Record<string, number>) {
  return z
    .record(labelSchema, z.number())
    .refine((map) => Object.keys(map).length > 0, 'needs at least one label')
    .refine((map) => {
      const lower = Object.keys(map).map((label) => label.toLowerCase());
      return new Set(lower).size === lower.length;
    }, 'labels must differ by more than case (the parser ignores case)')
    .default(() => ({ ...defaults }));
}

const rateSchema = z.number().min(0).max(1).default(1);

export const rewardConfigSchema = z.strictObject({
  /** Names this set of levels and weights; stored with every composite so it can be recomputed later. */
  version: z.string().min(1),
  empathy: z
    .strictObject({
      comparative: labelMap({ worse: 0, tie: 0.5, better: 1 }),
      absolute: labelMap({ '1': 0, '2': 0.25, '3': 0.5, '4': 0.75, '5': 1 }),
    })
    .prefault({}),
  humanlike: z.strictObject({ labels: labelMap({ robotic: 0, mixed: 0.5, humanlike: 1 }) }).prefault({}),
  liveEmotion: z
    .strictObject({
      startScore: z.number().default(40),
      maxScore: z.number().default(100),
      maxDelta: z.number().int().positive().default(10),
      /** Recorded as the live-emotion reward when the user leaves without a next message. */
      leftValue: z.number().min(-1).max(1).default(-0.5),
    })
    .refine((live) => live.startScore <= live.maxScore, 'startScore must not exceed maxScore')
    .prefault({}),
  weights: z
    .record(z.enum(COMPONENTS), z.number().nonnegative())
    .refine((weights) => Object.values(weights).some((weight) => weight > 0), 'weights must not all be zero')
    .default(() => ({ empathy: 0.35, humanlike: 0.25, live_emotion: 0.3, implicit: 0.1 })),
  /** Share of turns each component is labelled for (see sampledFor). */
  sampling: z
    .strictObject({
      empathy: rateSchema,
      humanlike: rateSchema,
      live_emotion: rateSchema,
      implicit: rateSchema,
    })
    .prefault({}),
});

export type RewardConfig = z.infer<typeof rewardConfigSchema>;

/** Throws an Error listing every problem when `json` is not a valid config; missing sections take the defaults. */
export function parseRewardConfig(json: unknown): RewardConfig {
  const result = rewardConfigSchema.safeParse(json);
  if (!result.success) throw new Error(`invalid reward config:\n${z.prettifyError(result.error)}`);
  return result.data;
}

export const DEFAULT_REWARD_CONFIG: RewardConfig = parseRewardConfig({ version: 'composite-v1' });
