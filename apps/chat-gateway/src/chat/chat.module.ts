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
import { CheckpointsModule } from '../checkpoints/checkpoints.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ChatGateway } from './chat.gateway';
import { LimitsService } from '../limits/limits.service';
import { DirectorService } from '../director/director.service';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import { PersonaController } from '../persona/persona.controller';
import { PersonaService } from '../persona/persona.service';
import { UserProfileEntity } from '@echoloop/persistence';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FeedbackService } from './feedback.service';
import { MessagesController } from './messages.controller';
import { RepliesController } from './replies.controller';
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
  imports: [
    AuthModule,
    ConversationsModule,
    CheckpointsModule,
    TypeOrmModule.forFeature([UserProfileEntity]),
  ],
  controllers: [MessagesController, RepliesController, PersonaController],
  providers: [
    ChatGateway,
    TurnService,
    LimitsService,
    MemoryService,
    PersonaService,
    DeepExtractionService,
    DirectorService,
    FeedbackService,
    OutboxRelayLifecycle,
    {
      provide: OutboxRelay,
      inject: [getDataSourceToken(), EventPublisher, MetricsService, PinoLogger],
      useFactory: (db: DataSource, publisher: EventPublisher, metrics: MetricsService, logger: PinoLogger) =>
        new OutboxRelay(db, publisher, metrics, logger.logger),
    },
  ],
})
export class ChatModule {}
