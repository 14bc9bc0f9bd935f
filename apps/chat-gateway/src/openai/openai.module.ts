import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { TurnInputsModule } from '../conversations/turn-inputs.module';
import { ClientThreads } from './client-threads';
import { ClientThreadsRepository } from './client-threads.repository';
import { OpenAiController } from './openai.controller';

/** The OpenAI-compatible chat API: clients' requests as turns of the user's conversations. */
@Module({
  imports: [ChatModule, TurnInputsModule],
  controllers: [OpenAiController],
  providers: [ClientThreads, ClientThreadsRepository],
})
export class OpenAiModule {}
