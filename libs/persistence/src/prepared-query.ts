import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { type DataSource, QueryFailedError } from 'typeorm';

const names = new Map<string, string>();

/** One name per distinct text: a connection refuses a name it prepared with another text. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `echoloop_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs one statement as a named prepared statement on the data source's pool. PostgreSQL then parses it once per
 * connection instead of on every call, and after five runs keeps a generic plan if it costs no more than planning
 * each run (for the turn's statement it does not: it is planned on every run). Forcing generic plans
 * (`plan_cache_mode`) moved the first token by about 0.6 ms at 1 stream, within the noise, and would need a pool of
 * its own, since the setting applies to every parameterized statement on a connection. For the few statements of a
 * hot path only: each distinct text stays prepared on every connection of the pool. Errors are TypeORM's
 * QueryFailedError, as from `DataSource.query`.
 */
export async function preparedQuery<T>(db: DataSource, text: string, values: unknown[]): Promise<T[]> {
  // TypeORM's PostgreSQL driver keeps its node-postgres pool here (typed `any` by TypeORM).
  const pool = (db.driver as unknown as { master: Pool }).master;
  try {
    const result = await pool.query({ name: statementName(text), text, values });
    return result.rows as T[];
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}
