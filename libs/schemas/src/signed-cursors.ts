import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

const MAC_BYTES = 16;
const PAYLOAD_CHARS = 1_024;
const CURSOR = new RegExp(
  `^[A-Za-z0-9_-]{1,${PAYLOAD_CHARS}}\\.[A-Za-z0-9_-]{${Math.ceil((MAC_BYTES * 4) / 3)}}$`,
);

/**
 * Paging cursors only this API can have issued: base64url JSON and an HMAC over it, with a key of one purpose
 * (derived from a service secret), so a forged or edited cursor is refused before its contents are read. The
 * contents are validated again on decoding, as any input.
 */
export class SignedCursors {
  /** Why a cursor is refused, whichever check refused it. */
  static readonly REFUSED = 'not a cursor this API gave';

  private readonly key: Buffer;

  /** The query or body field of such a cursor: its shape only; `decode` checks the rest. */
  static field = () =>
    z
      .string()
      .regex(CURSOR, SignedCursors.REFUSED)
      .describe('Opaque: pass back the `nextCursor` of the previous page as it is');

  constructor(secret: string, purpose: string) {
    this.key = createHmac('sha256', secret).update(`echoloop cursor: ${purpose}`).digest();
  }

  encode(value: unknown): string {
    const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** What the cursor holds, when this key signed it and the schema accepts it; undefined otherwise. */
  decode<T extends z.ZodType>(cursor: string, schema: T): z.output<T> | undefined {
    if (!CURSOR.test(cursor)) return undefined;
    const [payload = '', mac = ''] = cursor.split('.');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(payload))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    const result = schema.safeParse(parsed);
    return result.success ? result.data : undefined;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
