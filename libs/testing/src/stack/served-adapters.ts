/**
 * The adapter names a database's checkpoints registered (their `model_name` where `adapter_path` is set). A test
 * database or a loop run outlives nothing but the engine does: whoever drops the database unloads these first,
 * since nothing else ever would.
 */
export async function adapterNamesOf(db: { query(sql: string): Promise<unknown> }): Promise<string[]> {
  const rows = (await db.query('SELECT model_name FROM checkpoints WHERE adapter_path IS NOT NULL')) as {
    model_name: string;
  }[];
  return rows.map((row) => row.model_name);
}
