import { ChatModelClient } from '@echoloop/llm';
import { EventPublisher, MetricsService, OutboxRelay } from '@echoloop/platform';
import {
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { AuthModule } from '../auth/auth.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ChatGateway } from './chat.gateway';
import { MessagesController } from './messages.controller';
import { TurnService } from './turn.service';

/** Runs the outbox relay for as long as the gateway runs. */
@Injectable()
class OutboxRelayLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(OutboxRelay) private readonly relay: OutboxRelay) {}
  onApplicationBootstrap(): void {
    this.relay.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}

@Module({
  imports: [AuthModule, ConversationsModule],
  controllers: [MessagesController],
  providers: [
    ChatGateway,
    TurnService,
    OutboxRelayLifecycle,
    {
      provide: ChatModelClient,
      inject: [GATEWAY_ENV],
      useFactory: (env: GatewayEnv) =>
        new ChatModelClient([{ baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY }], {
          firstTokenTimeoutMs: env.LLM_FIRST_TOKEN_TIMEOUT_MS,
          idleTimeoutMs: env.LLM_IDLE_TIMEOUT_MS,
          retries: 1,
          breaker: { failureThreshold: 5, cooldownMs: 10_000 },
        }),
    },
    {
      provide: OutboxRelay,
      inject: [getDataSourceToken(), EventPublisher, MetricsService, PinoLogger],
      useFactory: (db: DataSource, publisher: EventPublisher, metrics: MetricsService, logger: PinoLogger) =>
        new OutboxRelay(db, publisher, metrics, logger.logger),
    },
  ],
})
export class ChatModule {}
