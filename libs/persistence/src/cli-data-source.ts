// The data source the TypeORM CLI loads (npm run migration:*). The CLI requires exactly one DataSource export.
import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

export default new DataSource(
  dataSourceOptions({
    url: process.env['DATABASE_URL'] ?? LOCAL_DATABASE_URL,
    applicationName: 'migrations',
  }),
);
