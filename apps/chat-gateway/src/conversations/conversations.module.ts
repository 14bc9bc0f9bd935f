import { RetentionSweeper } from './retention-sweeper';
import { CharacterEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CharactersController } from '../characters/characters.controller';
import { CharacterAssetsRepository } from '../characters/character-assets.repository';
import { CharactersService } from '../characters/characters.service';
import { TurnInputsModule } from '../chat/turn-inputs.module';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';

@Module({
  imports: [TypeOrmModule.forFeature([CharacterEntity]), TurnInputsModule],
  controllers: [CharactersController, ConversationsController],
  providers: [ConversationsService, CharactersService, CharacterAssetsRepository, RetentionSweeper],
  exports: [ConversationsService],
})
export class ConversationsModule {}
