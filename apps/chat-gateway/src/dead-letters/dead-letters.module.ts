import { DeadLetterEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeadLetterMirror } from './dead-letter-mirror';
import { DeadLettersController } from './dead-letters.controller';
import { DeadLettersRepository } from './dead-letters.repository';
import { DeadLettersService } from './dead-letters.service';

@Module({
  imports: [TypeOrmModule.forFeature([DeadLetterEntity])],
  controllers: [DeadLettersController],
  providers: [DeadLettersRepository, DeadLettersService, DeadLetterMirror],
})
export class DeadLettersModule {}
