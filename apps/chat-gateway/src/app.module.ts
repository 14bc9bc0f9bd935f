import { TOPICS } from '@echoloop/contracts';
import { PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import type { GatewayEnv } from './env';

export const SERVICE = 'chat-gateway';

@Module({})
export class AppModule {
  static register(env: GatewayEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          service: SERVICE,
          env,
          topics: [{ topic: TOPICS.chatTurnCompleted }, { topic: TOPICS.chatFeedback }],
        }),
      ],
    };
  }
}
