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
    drop: () => dropDatabase(name),
  };
}

/** PostgreSQL's "insufficient privilege": FORCE met a session it may not end (a background worker, briefly). */
const INSUFFICIENT_PRIVILEGE = '42501';

async function dropDatabase(name: string, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== INSUFFICIENT_PRIVILEGE || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
