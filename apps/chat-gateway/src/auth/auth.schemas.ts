import { userText } from '@echoloop/platform';
import { z } from 'zod';

const email = z
  .email()
  .max(254)
  .transform((value) => value.toLowerCase());

export const registerSchema = z
  .object({
    email,
    password: z.string().min(8, 'must be at least 8 characters').max(128),
    displayName: userText().trim().min(1).max(80),
  })
  .strict();

export const loginSchema = z.object({ email, password: z.string().min(1).max(128) }).strict();

export type RegisterInput = z.infer<typeof registerSchema>;
export type LoginInput = z.infer<typeof loginSchema>;

export const refreshSchema = z.object({ refreshToken: z.string().min(1).max(512) }).strict();
export const logoutSchema = z
  .object({ everywhere: z.boolean().default(false).describe('End every session of the account') })
  .strict()
  .default({ everywhere: false });

export type RefreshInput = z.infer<typeof refreshSchema>;
export type LogoutInput = z.infer<typeof logoutSchema>;
