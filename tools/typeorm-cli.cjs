#!/usr/bin/env node
// Runs the TypeORM CLI on TypeScript sources with the workspace's path aliases and the one data source.
// Usage: node tools/typeorm-cli.cjs migration:run|migration:revert|migration:show|migration:generate <Name>
const path = require('node:path');

const root = path.resolve(__dirname, '..');
process.chdir(root);
process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
require('@swc-node/register');

const [command, name] = process.argv.slice(2);
if (!command) {
  console.error(
    'usage: typeorm-cli.cjs <migration:run|migration:revert|migration:show|migration:generate Name>',
  );
  process.exit(2);
}
const dataSource = ['-d', 'libs/persistence/src/cli-data-source.ts'];
const args =
  command === 'migration:generate'
    ? [
        command,
        path.join('migrations', name ?? die('migration:generate needs a name')),
        ...dataSource,
        '--pretty',
      ]
    : [command, ...dataSource];
process.argv = [process.argv[0], 'typeorm', ...args];
require('typeorm/cli');

function die(message) {
  console.error(message);
  process.exit(2);
}
