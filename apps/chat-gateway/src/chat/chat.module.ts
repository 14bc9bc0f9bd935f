import { OUTBOX_RELAY_PROVIDERS } from '@echoloop/platform';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { CheckpointsModule } from '../checkpoints/checkpoints.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ExperimentsModule } from '../experiments/experiments.module';
import { ChatGateway } from './chat.gateway';
import { SocketSessions } from './socket-sessions';
import { LimitsService } from '../limits/limits.service';
import { StreamSlots } from './stream-slots';
import { TurnGatesRepository } from '../limits/turn-gates.repository';
import { DirectorService } from '../director/director.service';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import { PersonaController } from '../persona/persona.controller';
import { PersonaService } from '../persona/persona.service';
import { ProfilesRepository } from '../persona/profiles.repository';
import { CacheChanges } from './cache-changes';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';
import { MessagesController } from './messages.controller';
import { RepliesController } from './replies.controller';
import { RepliesService } from './replies.service';
import { InFlightRegistry } from './in-flight-registry';
import { ReplyRelay } from './reply-relay';
import { AfterReply } from './after-reply';
import { ReplyRunner } from './reply-runner';
import { ReplyStreamer } from './reply-streamer';
import { ResendReplies } from './resend-replies';
import { TurnContextBuilder } from './turn-context';
import { TurnInputsModule } from '../conversations/turn-inputs.module';
import { TurnRecorder } from './turn-recorder';
import { TurnRepository } from './turn.repository';
import { TurnService } from './turn.service';

@Module({
  imports: [AuthModule, ConversationsModule, CheckpointsModule, ExperimentsModule, TurnInputsModule],
  controllers: [MessagesController, RepliesController, PersonaController],
  providers: [
    ChatGateway,
    SocketSessions,
    TurnService,
    RepliesService,
    TurnRepository,
    InFlightRegistry,
    TurnContextBuilder,
    ReplyStreamer,
    ReplyRunner,
    AfterReply,
    TurnRecorder,
    LimitsService,
    StreamSlots,
    TurnGatesRepository,
    ReplyRelay,
    ResendReplies,
    CacheChanges,
    MemoryService,
    PersonaService,
    ProfilesRepository,
    DeepExtractionService,
    DirectorService,
    FeedbackService,
    FeedbackRepository,
    ...OUTBOX_RELAY_PROVIDERS,
  ],
  exports: [TurnService, RepliesService],
})
export class ChatModule {}
