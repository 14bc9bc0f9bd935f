import { z } from 'zod';

/**
 * The RL job templates, by name: `trl-dpo` (offline DPO on preference pairs), `trl-grpo` (online GRPO, rewarded by
 * the labeller), `verl-grpo` (renders a multi-turn GRPO run for a GPU cluster; trains nothing itself).
 */
export const RL_TEMPLATES = ['trl-dpo', 'trl-grpo', 'verl-grpo'] as const;
export const rlTemplateName = z.enum(RL_TEMPLATES);
export type RlTemplateName = z.infer<typeof rlTemplateName>;
