import { stackDatabaseUrl } from '@echoloop/testing';
import fc from 'fast-check';
import { Client } from 'pg';
import { dateTime } from './date-time';

/**
 * The type's promise, checked on the real PostgreSQL 15: whatever it accepts, timestamptz stores as the same
 * instant, under any session time zone; and the values it refuses include the ones PostgreSQL would fail on.
 */
describe('dateTime against PostgreSQL timestamptz', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: stackDatabaseUrl() });
    await db.connect();
    // A session far from UTC: a value read or compared without its offset would show here.
    await db.query(`SET TIME ZONE 'Pacific/Kiritimati'`);
  });

  afterAll(() => db?.end());

  const stored = async (value: string) =>
    (
      await db.query<{ utc: string }>(
        `SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS utc`,
        [value],
      )
    ).rows[0]!.utc;

  const edgeTimes = fc.oneof(
    fc.constantFrom(
      '0001-01-01T00:00:00Z',
      '0001-01-01T00:59:59+01:00',
      '0001-01-01T01:00:00+01:00',
      '0000-12-31T23:00:00-01:00',
      '9999-12-31T23:59:59.999999Z',
      '9999-12-31T22:59:59.999999-01:00',
      '9999-12-31T23:59:59-00:01',
      '2026-01-01T00:00:00+23:59',
      '2026-01-01T00:00:00-23:59',
      '2026-01-01T00:00:00.9999995Z',
      '1969-12-31T23:59:59.999999Z',
    ),
    fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.stringMatching(/^(\.\d{1,8})?$/),
        fc.constantFrom('Z', '+00:00', '+14:00', '-12:00', '+15:59', '-16:00', '+23:59', '-23:59'),
      )
      .map(
        ([y, mo, d, h, mi, fraction, zone]) =>
          `${String(y).padStart(4, '0')}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:00${fraction}${zone}`,
      ),
  );

  it('stores every accepted value as the instant it names, to the microsecond', async () => {
    await fc.assert(
      fc.asyncProperty(edgeTimes, async (value) => {
        const parsed = dateTime().safeParse(value);
        if (!parsed.success) return;
        const micros = parsed.data.replace(/\.(\d+)Z$/, (_, digits: string) => `.${digits.padEnd(6, '0')}Z`);
        expect(await stored(parsed.data)).toBe(micros);
      }),
      { numRuns: 400, seed: 20_261_128 },
    );
  });

  it('refuses the values PostgreSQL fails on after their offset is applied', async () => {
    const rejected: string[] = [];
    for (const value of ['0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', '0000-06-01T00:00:00Z']) {
      expect(dateTime().safeParse(value).success).toBe(false);
      const utc = new Date(Date.parse(value)).toISOString();
      await db.query('SELECT $1::timestamptz', [utc]).catch(() => rejected.push(value));
    }
    expect(rejected).toHaveLength(3);
  });
});

const pad = (n: number) => String(n).padStart(2, '0');
