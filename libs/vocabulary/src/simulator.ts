import { z } from 'zod';

/**
 * A simulated user's session after each step, as the eval-runner answers it to a rollout (the trl-grpo job, the RL
 * loop): the user's next message, the live score and whether to stop.
 */
export const simulatorSessionView = z.object({
  id: z.uuid(),
  profileId: z.string(),
  /** The simulated user's latest message (the opener right after opening; empty once it ended in error). */
  userMessage: z.string(),
  score: z.number(),
  bucket: z.string(),
  /** The change the analyser gave for the last reply (clamped); 0 right after opening. */
  delta: z.number(),
  turns: z.number().int(),
  done: z.boolean(),
  endReason: z.string().nullable(),
  /** score / 100 after this turn, for VeRL's per-turn scores. */
  turnScore: z.number(),
  /** RLVER's sparse reward max(score / 100, 0), final once done. */
  reward: z.number(),
});
export type SimulatorSessionView = z.infer<typeof simulatorSessionView>;
