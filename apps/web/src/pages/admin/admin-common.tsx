/** Account roles, in the gateway's canonical order. */
export const ROLES = ['user', 'experimenter', 'analyst', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_HINTS: Record<Role, string> = {
  user: 'chats with characters',
  experimenter: 'checkpoints, experiments, RL jobs, evaluations',
  analyst: 'turns, exports, evaluations',
  admin: 'everything, users and API keys included',
};
