import { QueryFailedError } from 'typeorm';
import { JudgeUnavailableError } from '../judges/judge-unavailable.error';
import { StalePlanError } from '../labelling/finish-plan';

// SQLSTATE classes of a database that is away or overloaded, not of a bad statement.
const TRANSIENT_SQLSTATE = /^(08|53|57P|40001|40P01)/;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/**
 * An outage (or a race with feedback) rather than a bad event: the message is retried until it goes through, never
 * dead-lettered.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof JudgeUnavailableError || error instanceof StalePlanError) return true;
  const code =
    (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.driverError?.code ??
    (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) return true;
  const message = error instanceof Error ? error.message : '';
  return (
    (error instanceof QueryFailedError && /terminat|connection/i.test(message)) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(message)
  );
}
