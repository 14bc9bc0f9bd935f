import type { DataSource } from 'typeorm';

export type TableCounts = Record<string, number>;

const countQueries = new WeakMap<DataSource, string | null>();

/** One query counting every table in `public` (the tables are those the migrations made: listed once per database). */
async function countQuery(db: DataSource): Promise<string | null> {
  if (!countQueries.has(db)) {
    const tables = (await db.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'migrations' ORDER BY 1`,
    )) as { tablename: string }[];
    countQueries.set(
      db,
      tables.length
        ? tables
            .map(({ tablename }) => `SELECT '${tablename}' AS t, count(*)::int AS n FROM "${tablename}"`)
            .join(' UNION ALL ')
        : null,
    );
  }
  return countQueries.get(db) ?? null;
}

/** Exact row counts of every table in `public` (throwaway test databases are small: one cheap query). */
export async function tableCounts(db: DataSource): Promise<TableCounts> {
  const query = await countQuery(db);
  if (!query) return {};
  const rows = (await db.query(query)) as { t: string; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.t, row.n]));
}

/** Tables whose count differs, as `table: before → after`. */
export function changedTables(before: TableCounts, after: TableCounts): string[] {
  return Object.keys({ ...before, ...after })
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table}: ${before[table]} → ${after[table]}`);
}
