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

/** A user's own key for an OpenAI-compatible client. */
export const createPersonalKeySchema = z
  .object({
    name: userText()
      .trim()
      .min(1)
      .max(100)
      .describe('The client it is for (SillyTavern, Open WebUI, a script): recorded with its conversations'),
    personaGuidance: z
      .boolean()
      .default(false)
      .describe("Adapt replies to this client to your inferred personality (off: the client's prompt only)"),
    expiresAt,
  })
  .strict();

export const rotateApiKeySchema = z.object({ expiresAt }).strict().optional();

export type CreateApiKeyInput = z.infer<typeof createApiKeySchema>;
export type RotateApiKeyInput = z.infer<typeof rotateApiKeySchema>;
export type CreatePersonalKeyInput = z.infer<typeof createPersonalKeySchema>;

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

export const personalKeyView = apiKeyView
  .pick({ id: true, name: true, prefix: true, status: true, createdAt: true, expiresAt: true })
  .extend({
    personaGuidance: z.boolean(),
    revokedAt: z.iso.datetime().nullable(),
    lastUsedAt: z.iso.datetime().nullable(),
  });
export const personalKeyList = z.object({ items: z.array(personalKeyView) });
export const personalKeyWithSecret = personalKeyView.extend({
  key: z
    .string()
    .describe('The secret, to give your client as its OpenAI API key: shown in this answer only'),
});
