/** A refresh's life: the active stages in order, then one of the end states. */
export const RL_JOB_ACTIVE_STATUSES = [
  'queued',
  'snapshotting',
  'training',
  'loading',
  'gating',
  'experimenting',
] as const;
/** `rendered`: a template that only renders a config to run elsewhere (no adapter, nothing served). */
export const RL_JOB_END_STATUSES = ['succeeded', 'rendered', 'failed', 'cancelled', 'skipped'] as const;
export const RL_JOB_STATUSES = [...RL_JOB_ACTIVE_STATUSES, ...RL_JOB_END_STATUSES] as const;
export type RlJobStatus = (typeof RL_JOB_STATUSES)[number];
export type RlJobActiveStatus = (typeof RL_JOB_ACTIVE_STATUSES)[number];
export type RlJobEndStatus = (typeof RL_JOB_END_STATUSES)[number];

export const isRlJobEnded = (status: string): status is RlJobEndStatus =>
  (RL_JOB_END_STATUSES as readonly string[]).includes(status);

/** What started a refresh. */
export const RL_TRIGGERS = ['schedule', 'threshold', 'manual'] as const;
export type RlTrigger = (typeof RL_TRIGGERS)[number];

/**
 * The RL job templates, by name: `trl-dpo` (offline DPO on preference pairs), `trl-grpo` (online GRPO, rewarded by
 * the labeller), `verl-grpo` (renders a multi-turn GRPO run for a GPU cluster; trains nothing itself).
 */
export const RL_TEMPLATES = ['trl-dpo', 'trl-grpo', 'verl-grpo'] as const;
export type RlTemplateName = (typeof RL_TEMPLATES)[number];
