import { loadEnv } from '@echoloop/config';
import { bootstrap, createLogger } from '@echoloop/platform';
import cluster from 'node:cluster';
import { AppModule, SERVICE } from './app.module';
import { bodyLimits } from './body-limits';
import { PostgresIoAdapter } from './chat/postgres-io-adapter';
import { WorkerPool } from './cluster/worker-pool';
import { gatewayEnv, type GatewayEnv } from './env';
import { serveWebApp } from './web-app';

function serve(): void {
  void bootstrap({
    service: SERVICE,
    loadEnv: () => loadEnv(gatewayEnv),
    module: (env) => AppModule.register(env),
    port: (env) => env.PORT,
    host: (env) => env.HOST,
    bodyLimits,
    configure: (app, env) => {
      serveWebApp(app, env.WEB_DIST_DIR);
      // socket.io events, rooms and server-side events reach every gateway process through PostgreSQL.
      app.useWebSocketAdapter(new PostgresIoAdapter(app, env.DATABASE_URL));
    },
  });
}

if (cluster.isPrimary) {
  let env: GatewayEnv | undefined;
  try {
    env = loadEnv(gatewayEnv);
  } catch {
    // bootstrap says what is wrong and exits.
  }
  if (env && env.GATEWAY_WORKERS > 1) {
    new WorkerPool(cluster, {
      workers: env.GATEWAY_WORKERS,
      // Workers must accept each other's tokens: one secret for all, drawn here when none is configured.
      env: { JWT_SECRET: env.JWT_SECRET },
      logger: createLogger({ service: SERVICE, level: env.LOG_LEVEL }),
    }).start();
  } else {
    serve();
  }
} else {
  serve();
}
