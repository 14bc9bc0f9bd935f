import { TOPICS } from '@echoloop/contracts';
import { PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import type { LabellerEnv } from './env';
import { LABELLER_ENV } from './tokens';
import { TurnIntakeService } from './turn-intake.service';

export const SERVICE = 'reward-labeller';

@Module({})
export class AppModule {
  static register(env: LabellerEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          service: SERVICE,
          env,
          topics: [{ topic: TOPICS.chatTurnCompleted }, { topic: TOPICS.rewardTurnLabelled }],
        }),
      ],
      providers: [{ provide: LABELLER_ENV, useValue: env }, TurnIntakeService],
    };
  }
}
