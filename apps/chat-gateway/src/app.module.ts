import { TOPICS } from '@echoloop/contracts';
import { PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { DatasetsModule } from './datasets/datasets.module';
import { DeadLettersModule } from './dead-letters/dead-letters.module';
import { ChatModule } from './chat/chat.module';
import { OpenAiModule } from './openai/openai.module';
import { ConversationsModule } from './conversations/conversations.module';
import type { GatewayEnv } from './env';
import { GatewayConfigModule } from './gateway-config.module';
import { StaffServicesModule } from './staff-services/staff-services.module';
import { UsersModule } from './users/users.module';

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
          // Every topic, not only the two it writes: the dead-letter mirror reads each one's dead-letter topic.
          topics: Object.values(TOPICS).map((topic) => ({ topic })),
        }),
        GatewayConfigModule.register(env),
        AuthModule,
        ConversationsModule,
        ChatModule,
        OpenAiModule,
        UsersModule,
        DatasetsModule,
        DeadLettersModule,
        StaffServicesModule,
      ],
    };
  }
}
