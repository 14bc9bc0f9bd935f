import type { CheckpointEntity } from '@echoloop/persistence';
import { deepExtractionDue } from '@echoloop/persona';
import { Injectable } from '@nestjs/common';
import type { TurnInputs } from '../conversations/turn-inputs';
import { DirectorService } from '../director/director.service';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import type { TurnContext } from './turn-context';
import type { RecordedTurn } from './turn-recorder';

/** What a committed reply sets going off the hot path; none of it delays the turn. */
@Injectable()
export class AfterReply {
  constructor(
    private readonly memory: MemoryService,
    private readonly deepPersona: DeepExtractionService,
    private readonly director: DirectorService,
  ) {}

  /** Off the hot path: the rolling summary, the deep persona extraction and the director, when they are due. */
  schedule(
    { conversation, userMessage }: TurnInputs,
    context: TurnContext,
    recorded: RecordedTurn,
    checkpoint: CheckpointEntity,
  ): void {
    if (
      recorded.userTurnsSinceDeep !== null &&
      deepExtractionDue(recorded.userTurnsSinceDeep, context.persona.shifted)
    ) {
      this.deepPersona.schedule(conversation.userId, conversation.id, recorded.reply.createdAt);
    }
    // A client's conversation (the OpenAI-compatible endpoint) follows the client's prompt: no director notes.
    if (conversation.clientName === null) {
      this.director.consider(
        conversation,
        context.userTurn,
        {
          characterName: context.characterName,
          transcript: [
            ...context.history,
            { role: 'user', content: userMessage.content },
            { role: 'assistant', content: recorded.reply.content },
          ],
          personaGuidance: context.persona.guidance,
        },
        checkpoint,
      );
    }
    this.memory.remember(
      {
        conversationId: conversation.id,
        dropped: context.dropped,
        previousSummary: conversation.summary,
        summaryThrough: conversation.summaryThrough,
      },
      checkpoint,
    );
  }
}
