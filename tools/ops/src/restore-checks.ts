import type { MigrationRow } from './manifest';

/** TypeORM's rule: a migration's timestamp is the last 13 digits of its name. */
export const migrationTimestamp = (name: string): number => Number(name.slice(-13));

export interface SchemaVerdict {
  /** Why the backup cannot be restored by this code; null when it can. */
  refusal: string | null;
  /** The code's migrations newer than the backup's head: run them after the restore. */
  behind: string[];
}

/**
 * Whether this code can run on the backup's schema: its head must be one of the code's migrations (`code` in the
 * order they run). A head the code does not know, newer or not, means the backup came from other code.
 */
export function schemaVerdict(head: MigrationRow | null, code: readonly string[]): SchemaVerdict {
  if (!head) return { refusal: null, behind: [...code] };
  const at = code.indexOf(head.name);
  if (at >= 0) return { refusal: null, behind: code.slice(at + 1) };
  const newest = code.at(-1);
  const newestTimestamp = newest ? migrationTimestamp(newest) : 0;
  if (head.timestamp > newestTimestamp) {
    return {
      refusal:
        `the backup's schema is newer than this code: its migration head ${head.name} is after this code's ` +
        `newest migration ${newest ?? '(none)'}; restore it with the code that made it (a newer checkout)`,
      behind: [],
    };
  }
  return {
    refusal: `the backup's migration head ${head.name} is not one of this code's migrations (migrations/index.ts)`,
    behind: [],
  };
}

/** The major version in `pg_dump (PostgreSQL) 15.18 (Debian ...)`; null when there is none. */
export function postgresMajor(version: string): number | null {
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(version);
  return match?.[1] ? Number(match[1]) : null;
}

/** pg_restore reads dumps of its own major version and older ones only. */
export function dumpVersionProblem(pgDumpVersion: string, pgRestoreVersion: string): string | null {
  const dumped = postgresMajor(pgDumpVersion);
  const restorer = postgresMajor(pgRestoreVersion);
  if (dumped === null || restorer === null || dumped <= restorer) return null;
  return `the dump was made by PostgreSQL ${dumped}'s pg_dump; this pg_restore is ${restorer} (install PostgreSQL ${dumped}'s client tools or set PG_BIN)`;
}
