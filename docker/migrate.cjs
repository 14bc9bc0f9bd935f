#!/usr/bin/env node
// Runs the TypeORM migrations from the compiled output, in the app images (no TypeScript, no dev
// dependencies): the same data source definition the apps use (dist/libs/persistence), the same
// migration list (dist/migrations). The dev tree uses tools/typeorm-cli.cjs instead.
//
// Usage (working directory: the image's /app, or a tree built with `nx run <app>:build`):
//   node docker/migrate.cjs [run|show|revert]      (default: run)
// Env: DATABASE_URL (required, postgres://...), MIGRATIONS_CONNECT_TIMEOUT_MS (default 5000).
// Exit codes: 0 done (for `show`: nothing pending), 1 failed, 2 usage or configuration error,
//             3 `show` found pending migrations.
'use strict';
require('reflect-metadata');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const command = process.argv[2] ?? 'run';

function fail(code, message) {
  process.stderr.write(`migrate: ${message}\n`);
  process.exit(code);
}

if (!['run', 'show', 'revert'].includes(command)) fail(2, `unknown command "${command}" (run|show|revert)`);
const url = process.env.DATABASE_URL;
if (!url) fail(2, 'DATABASE_URL is not set');
if (!/^postgres(ql)?:\/\//.test(url)) fail(2, 'DATABASE_URL must be a postgres:// URL');

let dataSourceOptions;
let DataSource;
try {
  ({ dataSourceOptions } = require(path.join(root, 'dist/libs/persistence/src/data-source-options.js')));
  ({ DataSource } = require('typeorm'));
} catch (error) {
  fail(2, `compiled output not found under ${root}/dist (build an app first): ${error.message}`);
}

const log = (message) => process.stdout.write(`migrate: ${message}\n`);

async function main() {
  const options = dataSourceOptions({ url, poolSize: 1, applicationName: 'migrations' });
  const timeout = Number(process.env.MIGRATIONS_CONNECT_TIMEOUT_MS ?? 5000);
  const dataSource = new DataSource({
    ...options,
    extra: { ...options.extra, connectionTimeoutMillis: timeout },
  });
  await dataSource.initialize();
  try {
    if (command === 'show') {
      const pending = await dataSource.showMigrations();
      log(pending ? 'pending migrations found' : 'schema is up to date');
      return pending ? 3 : 0;
    }
    if (command === 'revert') {
      await dataSource.undoLastMigration({ transaction: 'each' });
      log('reverted the last migration');
      return 0;
    }
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    log(applied.length ? `applied ${applied.map((m) => m.name).join(', ')}` : 'nothing to apply');
    return 0;
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => fail(1, error && error.stack ? error.stack : String(error)),
);
