import { TOPICS } from '@echoloop/contracts';
import { PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import type { OrchestratorEnv } from './env';

export const SERVICE = 'rl-orchestrator';

@Module({})
export class AppModule {
  static register(env: OrchestratorEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          service: SERVICE,
          env,
          topics: [{ topic: TOPICS.rlJobStatus }],
        }),
      ],
    };
  }
}
