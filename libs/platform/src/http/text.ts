import { z } from 'zod';

/**
 * User text as PostgreSQL can store it: no NUL and no other C0 control characters except tab and newlines.
 * Anything else is a 400 naming the field, never a database error.
 */
export const userText = () =>
  z
    .string()
    .refine(
      (value) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(value),
      'must not contain control characters',
    );
