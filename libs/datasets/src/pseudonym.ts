import { createHmac } from 'node:crypto';

/**
 * A user's stable pseudonym in exports: an HMAC-SHA256 of the user id under a key from configuration. The same user
 * gets the same pseudonym in every export made with one key (so a data team can group by user), nobody without
 * the key can get back to the id, and rotating the key makes new exports unlinkable to older ones.
 */
export function pseudonymize(key: string, userId: string): string {
  return `u_${createHmac('sha256', key).update(userId).digest('base64url').slice(0, 22)}`;
}
