import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'elk_';
/** A user's personal key, sent as a Bearer token by OpenAI-compatible clients. */
export const PERSONAL_KEY_PREFIX = 'elp_';

/** Only this digest is stored: a random 192-bit secret needs no slow hash. */
export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A new secret with its stored digest and the visible prefix people tell keys apart by. */
export function generateApiKey(kindPrefix = API_KEY_PREFIX): {
  secret: string;
  hash: string;
  prefix: string;
} {
  const secret = `${kindPrefix}${randomBytes(24).toString('base64url')}`;
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, 10) };
}
