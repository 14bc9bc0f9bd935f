import { z } from 'zod';
import { SignedCursors } from './signed-cursors';

const SECRET = 'a secret of at least thirty-two characters';
const shape = z.object({ at: z.string(), id: z.number() }).strict();

describe('SignedCursors', () => {
  const cursors = new SignedCursors(SECRET, 'turns');

  it('gives back what it encoded', () => {
    const cursor = cursors.encode({ at: '2026-01-01T00:00:00.000Z', id: 7 });
    expect(SignedCursors.field().safeParse(cursor).success).toBe(true);
    expect(cursors.decode(cursor, shape)).toEqual({ at: '2026-01-01T00:00:00.000Z', id: 7 });
  });

  it('refuses a cursor whose contents were edited, even into valid contents', () => {
    const [, mac] = cursors.encode({ at: 'a', id: 1 }).split('.');
    const forged = `${Buffer.from(JSON.stringify({ at: 'a', id: 2 })).toString('base64url')}.${mac}`;
    expect(SignedCursors.field().safeParse(forged).success).toBe(true);
    expect(cursors.decode(forged, shape)).toBeUndefined();
  });

  it('refuses a cursor signed for another purpose or with another secret', () => {
    const cursor = cursors.encode({ at: 'a', id: 1 });
    expect(new SignedCursors(SECRET, 'exports').decode(cursor, shape)).toBeUndefined();
    expect(new SignedCursors(`${SECRET}!`, 'turns').decode(cursor, shape)).toBeUndefined();
  });

  it('refuses signed contents the schema does not accept', () => {
    expect(cursors.decode(cursors.encode({ at: 'a', id: 'one' }), shape)).toBeUndefined();
    expect(cursors.decode(cursors.encode('not json object'), shape)).toBeUndefined();
  });

  it.each(['', '.', 'abc', 'a.b', `${'a'.repeat(2_000)}.${'b'.repeat(22)}`, 'e30.%%%%%%%%%%%%%%%%%%%%%%'])(
    'refuses the malformed cursor %p',
    (cursor) => {
      expect(cursors.decode(cursor, shape)).toBeUndefined();
    },
  );
});
