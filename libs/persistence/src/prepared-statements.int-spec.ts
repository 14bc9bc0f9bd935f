import { createTestDatabase, type TestDatabase } from '@echoloop/testing';
import { DataSource, QueryFailedError } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { pgErrorCode } from './pg-errors';
import { PreparedStatements } from './prepared-statements';

describe('PreparedStatements on PostgreSQL 15', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let statements: PreparedStatements;

  beforeAll(async () => {
    db = await createTestDatabase('prepared');
    dataSource = await new DataSource(dataSourceOptions({ url: db.url })).initialize();
    // One connection, so every statement below runs in the same session.
    statements = new PreparedStatements({ url: db.url, poolSize: 1 });
  });

  afterAll(async () => {
    await statements?.onApplicationShutdown();
    await dataSource?.destroy();
    await db?.drop();
  });

  it('plans a statement once for all its runs, while the data source keeps plans made for each query', async () => {
    const text = 'SELECT count(*)::int AS n FROM generate_series(1, $1::int)';
    expect(await statements.query(text, [3])).toEqual([{ n: 3 }]);
    expect(await statements.query(text, [5])).toEqual([{ n: 5 }]);
    expect(
      await statements.query(
        'SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1',
        [text],
      ),
    ).toEqual([{ generic: 2, custom: 0 }]);
    expect(await dataSource.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'auto' }]);
  });

  it('opens all its connections when warmed, before any statement, and runs statements on them without opening more', async () => {
    const sessions = async () => {
      const [row] = await dataSource.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        ['echoloop-warm-prepared'],
      );
      return row?.n;
    };
    const cold = new PreparedStatements({ url: db.url, poolSize: 2, applicationName: 'echoloop-warm' });
    try {
      expect(await sessions()).toBe(0);
      await cold.warm();
      expect(await sessions()).toBe(2);
      await cold.query('SELECT $1::int AS x', [1]);
      expect(await sessions()).toBe(2);
    } finally {
      await cold.onApplicationShutdown();
    }
  });

  it("fails like the data source's queries, with the SQLSTATE readable, and goes on", async () => {
    const failed = await statements.query('SELECT 1 / $1::int AS x', [0]).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(QueryFailedError);
    expect(pgErrorCode(failed)).toBe('22012');
    expect(await statements.query('SELECT 1 / $1::int AS x', [1])).toEqual([{ x: 1 }]);
  });
});
