import { DEFAULT_CARD_LIMITS } from '@echoloop/character-cards';
import type { BodyLimits } from '@echoloop/platform';
import type { GatewayEnv } from './env';

/** userText refuses control characters, so a character of a message takes at most 3 bytes (UTF-8) in JSON. */
const MAX_BYTES_PER_TEXT_CHAR = 3;

/** The longest history an OpenAI-compatible client may resend with a message (a long roleplay fits). */
export const CLIENT_HISTORY_BYTES = 8 * 1024 * 1024;

/**
 * A character card sent as JSON may be as large as a card file (20 MiB, see DEFAULT_CARD_LIMITS; file imports
 * are multipart, bounded by the upload's own limit). Every other body is small, a message the largest of them
 * (MAX_MESSAGE_CHARS): 256 KiB, or more when messages may be longer (body-limits.spec.ts checks them all).
 */
export function bodyLimits(env: Pick<GatewayEnv, 'MAX_MESSAGE_CHARS'>): BodyLimits {
  const card = DEFAULT_CARD_LIMITS.maxBytes;
  return {
    defaultBytes: Math.max(256 * 1024, env.MAX_MESSAGE_CHARS * MAX_BYTES_PER_TEXT_CHAR + 16 * 1024),
    routes: [
      { method: 'POST', path: '/v1/characters', bytes: card },
      { method: 'PATCH', path: '/v1/characters/:id', bytes: card },
      // An OpenAI-compatible client resends the whole conversation with each message.
      { method: 'POST', path: '/v1/chat/completions', bytes: CLIENT_HISTORY_BYTES },
    ],
  };
}
