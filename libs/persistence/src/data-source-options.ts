import { MIGRATIONS } from '@echoloop/migrations';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities/index';

export interface DatabaseSettings {
  url: string;
  poolSize?: number;
  applicationName?: string;
  /**
   * Keeps connections once opened, for a long-lived service (pg-pool closes idle ones after 10 s): a burst of
   * requests after a quiet spell would otherwise wait for new sessions. A CLI leaves it off, so that it can exit.
   */
  keepConnections?: boolean;
}

/**
 * The single definition of how Echoloop connects to PostgreSQL, used by every Nest app and by the migration
 * CLI. The schema changes only through migrations: `synchronize` stays off everywhere.
 */
export function dataSourceOptions({
  url,
  poolSize = 10,
  applicationName = 'echoloop',
  keepConnections = false,
}: DatabaseSettings) {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install, no superuser needed.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    migrationsRun: false,
    poolSize,
    applicationName,
    extra: { connectionTimeoutMillis: 5_000, ...(keepConnections && { idleTimeoutMillis: 0 }) },
  } satisfies DataSourceOptions;
}
