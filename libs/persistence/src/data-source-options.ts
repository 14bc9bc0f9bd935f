import { MIGRATIONS } from '@echoloop/migrations';
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';

export interface DatabaseSettings {
  url: string;
  poolSize?: number;
  applicationName?: string;
}

/**
 * The single definition of how Echoloop connects to PostgreSQL, used by every Nest app and by the migration
 * CLI. The schema changes only through migrations: `synchronize` stays off everywhere.
 */
export function dataSourceOptions({ url, poolSize = 10, applicationName = 'echoloop' }: DatabaseSettings) {
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
    extra: { connectionTimeoutMillis: 5_000 },
  } satisfies DataSourceOptions;
}
