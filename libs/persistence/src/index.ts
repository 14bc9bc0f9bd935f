export * from './entities/index';
export { dataSourceOptions, type DatabaseSettings } from './data-source-options';
export { isDataException, PG_ERROR, pgErrorCode } from './pg-errors';
export { named } from './named-parameters';
export { PreparedStatements } from './prepared-statements';
export { CACHE_CHANGES_CHANNEL } from './cache-changes';
