import type { Reply } from '../../api/client';
import { type Role } from './admin-common';

/** The services a key may call (the gateway's API_KEY_SERVICES). */
export const SERVICES = ['chat-gateway', 'reward-labeller', 'eval-runner', 'rl-orchestrator'] as const;
export type Service = (typeof SERVICES)[number];

/** Roles a key may hold: never admin (admins are people). */
export const KEY_ROLES = ['user', 'experimenter', 'analyst'] as const satisfies readonly Role[];

/** A key as `GET /v1/api-keys` shows it: never its secret. */
export type ApiKey = Reply<'get', '/v1/api-keys'>['items'][number];

/** The answer to create and rotate: the key with its secret, shown this once. */
export type ApiKeyWithSecret = Reply<'post', '/v1/api-keys'>;
