import { PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import type { EvalRunnerEnv } from './env';

export const SERVICE = 'eval-runner';

/** Health and metrics for now; evaluations run from the CLI (npm run eval:sentient). */
@Module({})
export class AppModule {
  static register(env: EvalRunnerEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot({ service: SERVICE, env, topics: [] })],
    };
  }
}
