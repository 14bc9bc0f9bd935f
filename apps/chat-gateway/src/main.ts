import { loadEnv } from '@echoloop/config';
import { bootstrap } from '@echoloop/platform';
import { AppModule, SERVICE } from './app.module';
import { bodyLimits } from './body-limits';
import { gatewayEnv } from './env';

void bootstrap({
  service: SERVICE,
  loadEnv: () => loadEnv(gatewayEnv),
  module: (env) => AppModule.register(env),
  port: (env) => env.PORT,
  host: (env) => env.HOST,
  bodyLimits,
});
