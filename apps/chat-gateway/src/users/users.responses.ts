import { ACCOUNT_AUDIT_ACTORS, ROLES } from '@echoloop/persistence';
import { z } from 'zod';

/** What the OpenAPI document says the users routes answer (never a password hash). */
export const userResponse = z.object({
  id: z.uuid(),
  email: z.email(),
  displayName: z.string(),
  roles: z.array(z.enum(ROLES)),
  disabled: z.boolean(),
  disabledAt: z.iso.datetime().nullable(),
  simulated: z.boolean().describe("The RL loop's simulated user, not a person"),
  createdAt: z.iso.datetime(),
});

export const userPageResponse = z.object({
  items: z.array(userResponse),
  nextOffset: z
    .number()
    .int()
    .nullable()
    .describe('Pass as `offset` for the next page; null on the last one'),
});

const accountState = z
  .object({ email: z.email(), displayName: z.string(), roles: z.array(z.enum(ROLES)), disabled: z.boolean() })
  .partial();

export const auditTrailResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      targetId: z.uuid(),
      actor: z.enum(ACCOUNT_AUDIT_ACTORS),
      actorId: z.uuid().nullable().describe('The admin who acted; null for the CLI and the bootstrap admin'),
      action: z.enum(['created', 'updated']),
      before: accountState
        .nullable()
        .describe('The changed fields before; null when the account was created'),
      after: accountState,
      at: z.iso.datetime(),
    }),
  ),
});
