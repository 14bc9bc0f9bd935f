import { dataSourceOptions } from '@echoloop/persistence';
import { createTestDatabase, startApp, type AppProcess, type TestDatabase } from '@echoloop/testing';
import path from 'node:path';
import { DataSource } from 'typeorm';

export const APPS = ['chat-gateway', 'reward-labeller', 'rl-orchestrator', 'eval-runner'] as const;
export type AppName = (typeof APPS)[number];

const PRELOAD = path.resolve(__dirname, 'express-routes.preload.cjs');

export interface RouteKey {
  method: string;
  /** OpenAPI template form: `/v1/characters/{id}`. */
  path: string;
}

/** Express's `:id` and `{*rest}` in OpenAPI's `{id}` form, so both sides compare as strings. */
export const templatePath = (expressPath: string): string =>
  expressPath.replace(/\{\*([A-Za-z0-9_]+)\}/g, '{$1}').replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');

/** Starts an app that reports the routes its Express router holds once it listens. */
export async function startAppReportingRoutes(
  app: AppName,
  env: Record<string, string>,
): Promise<{ running: AppProcess; expressRoutes: () => RouteKey[] }> {
  const previous = process.env['APP_NODE_ARGS'];
  process.env['APP_NODE_ARGS'] = `${previous ?? ''} -r ${PRELOAD}`;
  try {
    const running = await startApp(app, env);
    return {
      running,
      expressRoutes: () => {
        const line = /EXPRESS_ROUTES (.*)/.exec(running.logs())?.[1];
        if (!line) throw new Error(`${app} did not report its routes`);
        return (JSON.parse(line) as RouteKey[]).map((r) => ({
          method: r.method,
          path: templatePath(r.path),
        }));
      },
    };
  } finally {
    if (previous === undefined) delete process.env['APP_NODE_ARGS'];
    else process.env['APP_NODE_ARGS'] = previous;
  }
}

/** A fresh database with every migration applied, and a connection to it. */
export async function migratedDatabase(name: string): Promise<{ database: TestDatabase; db: DataSource }> {
  const database = await createTestDatabase(name);
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  await db.runMigrations();
  return { database, db };
}
