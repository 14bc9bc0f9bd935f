import type { Reply } from '../../api/client';

/** A personal key as `GET /v1/me/api-keys` shows it: never its secret. */
export type PersonalKey = Reply<'get', '/v1/me/api-keys'>['items'][number];

/** The answer to create: the key with its secret, shown this once. */
export type PersonalKeyWithSecret = Reply<'post', '/v1/me/api-keys'>;
