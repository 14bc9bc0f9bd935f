#!/usr/bin/env node
// Container HEALTHCHECK: GET /health/live on the app's own port. Liveness only: it never touches
// PostgreSQL or Kafka, so a dependency outage does not get healthy containers restarted.
// The port is PORT when set, else the default of the app's own env schema (dist/apps/$APP/src/env.js).
'use strict';
const path = require('node:path');

function defaultPort() {
  const app = process.env.APP;
  if (!app) return undefined;
  try {
    const mod = require(path.resolve(__dirname, '..', 'dist/apps', app, 'src/env.js'));
    for (const schema of Object.values(mod)) {
      const parsed = schema && typeof schema.safeParse === 'function' ? schema.safeParse({}) : undefined;
      if (parsed && parsed.success && Number.isInteger(parsed.data.PORT)) return parsed.data.PORT;
    }
  } catch {
    // fall through: no schema to ask
  }
  return undefined;
}

const port = process.env.PORT || defaultPort();
if (!port) {
  console.error('healthcheck: PORT is not set and no default was found');
  process.exit(1);
}
fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  (error) => {
    console.error(`healthcheck: ${error.message}`);
    process.exit(1);
  },
);
