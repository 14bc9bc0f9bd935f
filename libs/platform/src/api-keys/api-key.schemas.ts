import { API_KEY_SERVICES, ROLES } from '@echoloop/persistence';
import { dateTime } from '@echoloop/schemas';
import { z } from 'zod';
import { userText } from '../http/text';

/** Roles a key may hold: never admin, so that no key can mint keys or grant roles. */
export const API_KEY_ROLES = ROLES.filter((role) => role !== 'admin');

const unique = <T>(items: T[]): T[] => [...new Set(items)];

const expiresAt = dateTime()
  .transform((value) => new Date(value))
  .optional();

export const createApiKeySchema = z
  .object({
    name: userText().trim().min(1).max(100),
    roles: z
      .array(
        z.enum(ROLES).refine((role) => role !== 'admin', 'an API key cannot hold admin (admins are people)'),
      )
      .min(1)
      .transform(unique),
    services: z.array(z.enum(API_KEY_SERVICES)).min(1).transform(unique),
    expiresAt,
  })
  .strict();

export const rotateApiKeySchema = z.object({ expiresAt }).strict().optional();

export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
export type RotateApiKeyInput = z.infer<typeof rotateApiKeySchema>;

/** A key as the routes answer it: never its hash; the secret itself only once, in `key`, on create and rotate. */
export const apiKeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the secret, to recognise it'),
  roles: z.array(z.enum(ROLES)),
  services: z.array(z.enum(API_KEY_SERVICES)),
  status: z.enum(['active', 'expired', 'revoked']),
  createdBy: z.uuid().nullable(),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
  rotatedAt: z.iso.datetime().nullable(),
  previousSecretValidUntil: z.iso
    .datetime()
    .nullable()
    .describe('Until when the secret before the last rotation still works'),
  lastUsedAt: z.iso.datetime().nullable(),
});
export const apiKeyList = z.object({ items: z.array(apiKeyView) });
export const apiKeyWithSecret = apiKeyView.extend({
  key: z.string().describe('The secret: shown in this answer only, never again'),
});
