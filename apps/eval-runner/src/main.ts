import { loadEnv } from '@echoloop/config';
import { bootstrap } from '@echoloop/platform';
import { AppModule, SERVICE } from './app.module';
import { BODY_LIMITS } from './body-limits';
import { evalRunnerEnv } from './env';

void bootstrap({
  service: SERVICE,
  loadEnv: () => loadEnv(evalRunnerEnv),
  module: (env) => AppModule.register(env),
  port: (env) => env.PORT,
  host: (env) => env.HOST,
  bodyLimits: () => BODY_LIMITS,
});
