import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { Client } from 'pg';
import { uniqueName } from './wait-for';

/** The local stack's database (tools/stack/postgres.sh); tests create throwaway databases beside it. */
export const stackDatabaseUrl = (): string => process.env['DATABASE_URL'] ?? LOCAL_DATABASE_URL;

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: stackDatabaseUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new empty database on the real PostgreSQL, so each test file runs migrations from scratch. */
export async function createTestDatabase(prefix = 'it'): Promise<TestDatabase> {
  const name = uniqueName(prefix).toLowerCase();
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(stackDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
