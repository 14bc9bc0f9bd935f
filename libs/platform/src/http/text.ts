import { z } from 'zod';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/**
 * User text as PostgreSQL can store it: no NUL and no other C0 control characters except tab and newlines.
 * Anything else is a 400 naming the field, never a database error.
 */
export const userText = () =>
  z.string().refine((value) => !CONTROL_CHARACTERS.test(value), 'must not contain control characters');
