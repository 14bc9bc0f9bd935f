#!/usr/bin/env node
// Part of tools/ci/validate-compose.sh: checks each app service's environment, as compose.yml sets it
// (already interpolated by compose_checks.py), against the app's own zod schema (apps/<app>/src/env.ts),
// loaded from source with @swc-node/register like tools/typeorm-cli.cjs does.
//
// stdin: {"repoRoot": "...", "services": [{"service": "chat-gateway", "app": "chat-gateway", "env": {...}}]}
// stdout: one `OK ...` or `FAIL ...` line per service. Exit 1 when any failed.
//
// A service fails when its environment does not parse, when a variable the schema reads is left to a
// default that points at loopback (the container itself, e.g. DATABASE_URL's local-stack default), or
// when it sets a variable no schema reads (a typo the app would silently ignore).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const RUNTIME_VARS = new Set(['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ', 'UV_THREADPOOL_SIZE']);
const LOOPBACK = /(^|[/@,\s])(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?|0\.0\.0\.0)([:/,\s]|$)/;

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const root = path.resolve(input.repoRoot);
process.chdir(root);
// A build of the apps (APPS_BUILD_DIR, as the test run makes with swc) loads in a fraction of the time it takes to
// compile the sources on the fly; without one, the sources are compiled as they load.
const build = process.env.APPS_BUILD_DIR ? path.resolve(root, process.env.APPS_BUILD_DIR) : null;
const fromBuild = (app) => build && path.join(build, 'apps', app, 'src', 'env.js');
if (!input.services.every(({ app }) => fromBuild(app) && fs.existsSync(fromBuild(app)))) {
  process.env.SWC_NODE_PROJECT ??= path.join(root, 'tsconfig.base.json');
  try {
    require(require.resolve('@swc-node/register', { paths: [root] }));
  } catch (error) {
    console.log(
      `FAIL app environments: cannot load @swc-node/register from ${root}/node_modules (run npm ci): ${error.message}`,
    );
    process.exit(1);
  }
}

const isSchema = (value) => value && typeof value.safeParse === 'function';
/** The z.object under refinements and transforms (zod 4 pipes keep it in def.in), for its keys. */
function objectShape(schema) {
  let current = schema;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current.shape && typeof current.shape === 'object') return current.shape;
    const def = (current._zod && current._zod.def) || current._def || {};
    current = def.in || def.schema || def.innerType;
  }
  return undefined;
}
const show = (value) => (Array.isArray(value) ? value.join(',') : String(value));
let failed = 0;

for (const { service, app, env } of input.services) {
  const label = `env ${service} (apps/${app}/src/env.ts)`;
  const built = fromBuild(app);
  const file = built && fs.existsSync(built) ? built : path.join(root, 'apps', app, 'src', 'env.ts');
  let schemas;
  try {
    schemas = Object.entries(require(file)).filter(([, value]) => isSchema(value) && objectShape(value));
  } catch (error) {
    console.log(`FAIL ${label}: cannot load: ${error.message.split('\n')[0]}`);
    failed++;
    continue;
  }
  if (schemas.length !== 1) {
    console.log(`FAIL ${label}: expected one exported zod object schema, found ${schemas.length}`);
    failed++;
    continue;
  }
  const [schemaName, schema] = schemas[0];
  const shape = objectShape(schema);
  const problems = [];
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path.join('.') || '(root)';
      problems.push(
        env[key] === undefined ? `${key} is required (${issue.message})` : `${key}: ${issue.message}`,
      );
    }
  }
  for (const [key, field] of Object.entries(shape)) {
    if (env[key] !== undefined) continue;
    const fallback = field.safeParse(undefined);
    if (fallback.success && fallback.data !== undefined && LOOPBACK.test(show(fallback.data))) {
      problems.push(
        `${key} is not set and its default ${show(fallback.data)} is loopback, i.e. the container itself`,
      );
    }
  }
  for (const key of Object.keys(env)) {
    if (!(key in shape) && !RUNTIME_VARS.has(key))
      problems.push(`${key} is set but ${schemaName} does not read it`);
  }
  if (problems.length) {
    console.log(`FAIL ${label}: ${problems.join('; ')}`);
    failed++;
  } else {
    console.log(`OK   ${label}: ${Object.keys(env).length} variables parse with ${schemaName}`);
  }
}
process.exit(failed ? 1 : 0);
