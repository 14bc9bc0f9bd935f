import { RetentionSweeper } from './retention-sweeper';
import { CharacterEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CharactersController } from '../characters/characters.controller';
import { CharacterAssetsRepository } from '../characters/character-assets.repository';
import { CharactersService } from '../characters/characters.service';
import { TurnInputsModule } from './turn-inputs.module';
import { ConversationsController } from './conversations.controller';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

@Module({
  imports: [TypeOrmModule.forFeature([CharacterEntity]), TurnInputsModule],
  controllers: [CharactersController, ConversationsController],
  providers: [
    ConversationsService,
    ConversationsRepository,
    CharactersService,
    CharacterAssetsRepository,
    RetentionSweeper,
  ],
  // The repository also serves memory, the director and deep persona extraction (ChatModule).
  exports: [ConversationsService, ConversationsRepository],
})
export class ConversationsModule {}
