import { loadEnv } from '@echoloop/config';
import { bootstrap } from '@echoloop/platform';
import { AppModule, SERVICE } from './app.module';
import { bodyLimits } from './body-limits';
import { gatewayEnv } from './env';
import { serveWebApp } from './web-app';

void bootstrap({
  service: SERVICE,
  loadEnv: () => loadEnv(gatewayEnv),
  module: (env) => AppModule.register(env),
  port: (env) => env.PORT,
  host: (env) => env.HOST,
  bodyLimits,
  configure: (app, env) => serveWebApp(app, env.WEB_DIST_DIR),
});
