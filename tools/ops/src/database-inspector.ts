import { Client } from 'pg';
import { type DatabaseTarget, scrub } from './database-target';
import type { MigrationRow } from './manifest';

export interface DatabaseFacts {
  serverVersion: string;
  /** Tables, views, sequences and the like outside PostgreSQL's own schemas: 0 is an empty database. */
  relations: number;
  tables: number;
  migrationHead: MigrationRow | null;
  migrations: number;
}

const RELATIONS = `
  SELECT count(*)::int AS relations, count(*) FILTER (WHERE c.relkind IN ('r', 'p'))::int AS tables
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
     AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')`;

/** What a backup records about its database, and what a restore checks about its target. */
export class DatabaseInspector {
  async facts(target: DatabaseTarget): Promise<DatabaseFacts> {
    const client = new Client({ connectionString: target.url, application_name: 'echoloop-ops' });
    try {
      await client.connect();
      const version = await client.query<{ server_version: string }>('SHOW server_version');
      const counts = await client.query<{ relations: number; tables: number }>(RELATIONS);
      const migrations = await this.migrations(client);
      return {
        serverVersion: version.rows[0]?.server_version ?? 'unknown',
        relations: counts.rows[0]?.relations ?? 0,
        tables: counts.rows[0]?.tables ?? 0,
        ...migrations,
      };
    } catch (error) {
      // node-postgres messages name hosts and roles, never the password; scrubbed all the same.
      const message = scrub(error instanceof Error ? error.message : String(error), target.password);
      throw new Error(`database ${target.display}: ${message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async migrations(client: Client): Promise<Pick<DatabaseFacts, 'migrationHead' | 'migrations'>> {
    const exists = await client.query<{ table: string | null }>(
      `SELECT to_regclass('public.typeorm_migrations')::text AS table`,
    );
    if (!exists.rows[0]?.table) return { migrationHead: null, migrations: 0 };
    const rows = await client.query<{ id: number; timestamp: string; name: string; count: number }>(
      `SELECT id, timestamp::text, name, count(*) OVER ()::int AS count
         FROM typeorm_migrations ORDER BY id DESC LIMIT 1`,
    );
    const head = rows.rows[0];
    if (!head) return { migrationHead: null, migrations: 0 };
    return {
      migrationHead: { id: head.id, timestamp: Number(head.timestamp), name: head.name },
      migrations: head.count,
    };
  }
}
