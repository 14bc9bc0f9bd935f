import { Module } from '@nestjs/common';
import { TurnInputsCache } from './turn-inputs-cache';

/** The turn-input guesses, one cache shared by the chat (which advances them) and conversations (which seed them). */
@Module({ providers: [TurnInputsCache], exports: [TurnInputsCache] })
export class TurnInputsModule {}
