import fc from 'fast-check';
import { DATE_TIME_PROBLEMS, dateTime } from './date-time';

const parse = (value: unknown) => dateTime().safeParse(value);
const messages = (value: unknown) => parse(value).error?.issues.map((issue) => issue.message) ?? [];

describe('dateTime', () => {
  it('normalises an offset to the same instant in UTC', () => {
    expect(parse('2026-01-01T05:30:00+05:30').data).toBe('2026-01-01T00:00:00.000Z');
    expect(parse('2025-12-31T19:00:00-05:00').data).toBe('2026-01-01T00:00:00.000Z');
    expect(parse('2026-01-01T00:00Z').data).toBe('2026-01-01T00:00:00.000Z');
  });

  it('keeps microseconds, which move with the offset as whole seconds do', () => {
    expect(parse('2026-01-01T00:00:00.123456+01:00').data).toBe('2025-12-31T23:00:00.123456Z');
    expect(parse('2026-01-01T00:00:00.1Z').data).toBe('2026-01-01T00:00:00.100Z');
  });

  it('accepts the first and last instants PostgreSQL writes with a four-digit year', () => {
    expect(parse('0001-01-01T00:00:00Z').data).toBe('0001-01-01T00:00:00.000Z');
    expect(parse('9999-12-31T23:59:59.999999Z').data).toBe('9999-12-31T23:59:59.999999Z');
    expect(parse('0001-01-01T01:00:00+01:00').data).toBe('0001-01-01T00:00:00.000Z');
  });

  it('refuses a year that exists only before the offset is applied', () => {
    expect(messages('0001-01-01T00:30:00+01:00')).toEqual([DATE_TIME_PROBLEMS.range]);
    expect(messages('9999-12-31T23:30:00-01:00')).toEqual([DATE_TIME_PROBLEMS.range]);
    expect(messages('0000-06-01T00:00:00Z')).toEqual([DATE_TIME_PROBLEMS.range]);
  });

  it('refuses more than microsecond precision', () => {
    expect(messages('2026-01-01T00:00:00.1234567Z')).toEqual([DATE_TIME_PROBLEMS.precision]);
  });

  it.each([
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-06-30T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    'infinity',
    'epoch',
    'now',
    'Thu, 01 Jan 2026 00:00:00 GMT',
    1_767_225_600_000,
    '',
  ])('refuses %p', (value) => {
    expect(parse(value).success).toBe(false);
  });

  it('gives, for any instant it accepts, that instant in UTC within the range', () => {
    const offset = fc
      .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([sign, h, m]) => `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const local = fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59.999Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(local, offset, fc.integer({ min: 0, max: 999 }), (date, zone, micros) => {
        const text = `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}${zone}`;
        const result = parse(text);
        const instant = Date.parse(text);
        const inRange =
          instant >= Date.parse('0001-01-01T00:00:00Z') && instant < Date.parse('+010000-01-01T00:00:00Z');
        expect(result.success).toBe(inRange);
        if (!result.data) return;
        expect(Date.parse(result.data)).toBe(instant);
        expect(result.data).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
        expect(result.data.slice(23, 26)).toBe(String(micros).padStart(3, '0'));
      }),
    );
  });
});
