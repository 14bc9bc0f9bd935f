import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'elk_';

/** Only this digest is stored: a random 192-bit secret needs no slow hash. */
export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A new secret with its stored digest and the visible prefix people tell keys apart by. */
export function generateApiKey(): { secret: string; hash: string; prefix: string } {
  const secret = `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, 10) };
}
