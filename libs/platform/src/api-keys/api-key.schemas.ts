import { API_KEY_SERVICES, ROLES } from '@echoloop/persistence';
import { z } from 'zod';
import { userText } from '../http/text';

/** Roles a key may hold: never admin, so that no key can mint keys or grant roles. */
export const API_KEY_ROLES = ROLES.filter((role) => role !== 'admin');

const unique = <T>(items: T[]): T[] => [...new Set(items)];

const expiresAt = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), 'must be a real date')
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
