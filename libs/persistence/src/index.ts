export * from './entities';
export { dataSourceOptions, type DatabaseSettings } from './data-source-options';
