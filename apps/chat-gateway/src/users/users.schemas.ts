import { type Role, ROLES } from '@echoloop/persistence';
import { userText } from '@echoloop/platform';
import { z } from 'zod';

export const userParamsSchema = z.object({ id: z.uuid() }).strict();

export const listUsersQuerySchema = z
  .object({
    /** A part of the email, case-insensitive. */
    email: userText().trim().min(1).max(254).optional(),
    role: z.enum(ROLES).optional(),
    disabled: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export const patchUserSchema = z
  .object({
    roles: z
      .array(z.enum(ROLES))
      .min(1)
      .max(ROLES.length)
      .refine((roles) => new Set(roles).size === roles.length, 'must not repeat a role')
      .optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine(
    (patch) => patch.roles !== undefined || patch.disabled !== undefined,
    'give roles, disabled or both',
  );

export type ListUsersQuery = z.infer<typeof listUsersQuerySchema>;
export type PatchUserInput = z.infer<typeof patchUserSchema>;

/** Roles in their canonical order, so the same set always reads (and compares) the same. */
export function canonicalRoles(roles: readonly Role[]): Role[] {
  return ROLES.filter((role) => roles.includes(role));
}
