import type { DataSource } from 'typeorm';

/**
 * Rows of a query through a server-side cursor (pg-query-stream), so memory stays flat however many rows there
 * are; the connection goes back to the pool when the iteration ends, early or not.
 */
export async function* streamRows<T>(db: DataSource, sql: string, params: unknown[]): AsyncGenerator<T> {
  const runner = db.createQueryRunner('slave');
  try {
    const stream = await runner.stream(sql, params);
    for await (const row of stream) yield row as T;
  } finally {
    await runner.release();
  }
}
