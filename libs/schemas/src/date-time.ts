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

/**
 * The one date-time of the API (bodies, queries, cursors, filters, socket events): RFC 3339 with `Z` or an offset,
 * as PostgreSQL's timestamptz can store and compare it (years 0001-9999 once in UTC, at most microseconds).
 * Parses to the same instant in UTC, `YYYY-MM-DDTHH:MM:SS.sss[sss]Z`, the microseconds kept when given; anything
 * else is a `validation_failed` naming the field.
 */
export const dateTime = () =>
  z.iso
    .datetime({ offset: true })
    .transform((value, ctx) => {
      const fraction = FRACTION.exec(value)?.[1] ?? '';
      if (fraction.length > MAX_FRACTION_DIGITS) {
        ctx.addIssue({ code: 'custom', message: DATE_TIME_PROBLEMS.precision });
        return z.NEVER;
      }
      const ms = Date.parse(value);
      if (!(ms >= EARLIEST_MS && ms <= LATEST_MS)) {
        ctx.addIssue({ code: 'custom', message: DATE_TIME_PROBLEMS.range });
        return z.NEVER;
      }
      // Date keeps milliseconds; the digits past them do not move with the offset, so they are carried over.
      return new Date(ms).toISOString().replace('Z', `${fraction.slice(3)}Z`);
    })
    .describe('RFC 3339 date-time with Z or an offset; years 0001-9999 in UTC, at most microseconds');
