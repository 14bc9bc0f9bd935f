import { z } from 'zod';

/** PostgreSQL's timestamptz keeps microseconds; a finer fraction would be rounded, so two times could tie. */
const MAX_FRACTION_DIGITS = 6;
/** Years as an ISO 8601 string writes them in four digits, once in UTC: PostgreSQL has no year 0. */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');
const FRACTION = /\.(\d+)/;

export const DATE_TIME_PROBLEMS = {
  precision: `must have at most ${MAX_FRACTION_DIGITS} fractional digits (microseconds)`,
  range: 'must fall between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z once in UTC',
} as const;

/** Refinements run only on a value that is already a well-formed date-time, so each value gets one message. */
const wellFormed = (payload: { issues: readonly unknown[] }) => payload.issues.length === 0;

const fractionDigits = (value: string) => FRACTION.exec(value)?.[1]?.length ?? 0;

/** The same instant in UTC; the digits past milliseconds (which Date drops) do not move with the offset. */
function inUtc(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  return new Date(ms).toISOString().replace('Z', `${(FRACTION.exec(value)?.[1] ?? '').slice(3)}Z`);
}

/**
 * The one date-time of the API (bodies, queries, cursors, filters, socket events): RFC 3339 with `Z` or an offset,
 * as PostgreSQL's timestamptz can store and compare it (years 0001-9999 once in UTC, at most microseconds).
 * Parses to the same instant in UTC, `YYYY-MM-DDTHH:MM:SS.sss[sss]Z`, the microseconds kept when given; anything
 * else is a `validation_failed` naming the field. Still a string in and out, so JSON Schema can describe it.
 */
export const dateTime = () =>
  z.iso
    .datetime({ offset: true })
    .refine((value) => fractionDigits(value) <= MAX_FRACTION_DIGITS, {
      message: DATE_TIME_PROBLEMS.precision,
      when: wellFormed,
    })
    .refine(
      (value) => {
        const ms = Date.parse(value);
        return ms >= EARLIEST_MS && ms <= LATEST_MS;
      },
      { message: DATE_TIME_PROBLEMS.range, when: wellFormed },
    )
    .overwrite(inUtc)
    .describe('RFC 3339 date-time with Z or an offset; years 0001-9999 in UTC, at most microseconds');
