import type { HistoryMessage, TurnInputs } from '../conversations/turn-inputs';
import type { ChatMessage } from '@echoloop/vocabulary';
import { characterCardSchema } from '@echoloop/character-cards';
import type { CheckpointEntity, UserProfileEntity } from '@echoloop/persistence';
import { buildPrompt, TokenCalibration } from '@echoloop/prompt';
import { Inject, Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { ParseMemo } from '../common/parse-memo';
import { DirectorService } from '../director/director.service';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { PersonaService, type PersonaUpdate } from '../persona/persona.service';
import type { CrisisAssessment } from '../safety/crisis-detector';

/** What a turn's prompt was built from, and what the rest of the turn (event, memory, director) reads of it. */
export interface TurnContext {
  safety: CrisisAssessment;
  persona: PersonaUpdate;
  userTurn: number;
  characterName: string;
  userName: string;
  prompt: ChatMessage[];
  /** The history the prompt kept (oldest first). */
  history: ChatMessage[];
  /** The oldest turns the token budget left out: the rolling summary's input. */
  dropped: HistoryMessage[];
  uncalibratedEstimate: number;
}

/**
 * Builds a turn's prompt from its inputs, in process: the live persona's observation of the message, the
 * director's note, the safety instructions, within the checkpoint's token budget as calibrated by past usage.
 */
@Injectable()
export class TurnContextBuilder {
  /** The endpoint's real prompt token counts, learnt from each reply's usage, correct our estimate. */
  private readonly calibration = new TokenCalibration();
  /** Cards parsed once, not on every turn (the same card comes back with every turn of its conversations). */
  private readonly cards = new ParseMemo((raw) => characterCardSchema.parse(raw));

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly persona: PersonaService,
    private readonly director: DirectorService,
  ) {}

  build(
    inputs: TurnInputs,
    checkpoint: CheckpointEntity,
    maxTokens: number,
    safety: CrisisAssessment,
  ): TurnContext {
    const { conversation, userMessage, history: earlier, userTurn } = inputs;
    const tokenFactor = this.calibration.factor(checkpoint.id);
    const persona = this.persona.observe(
      inputs.profile,
      userMessage,
      earlier.findLast((m) => m.role === 'assistant')?.content,
    );
    const history: ChatMessage[] = earlier.map((m) => ({ role: m.role, content: m.content }));
    const card = this.cards.get(inputs.card);
    // A client's transcript names its speakers its own way: those names fill {{user}}/{{char}} and the stops.
    const userName = conversation.clientSpeakers?.user ?? inputs.userName;
    const characterName = conversation.clientSpeakers?.character ?? card.data.name;
    // A client's conversation (the OpenAI-compatible endpoint) has the client's prompt, not the director's notes,
    // and the persona's guidance only when the client's key asks for it.
    const client = conversation.clientName !== null;
    const prompt = buildPrompt({
      card,
      ...(conversation.clientSpeakers?.character && { characterName }),
      userName,
      history,
      memory: conversation.summary,
      ...(conversation.clientSystemPrompt !== null && { systemPrompt: conversation.clientSystemPrompt }),
      ...((!client || conversation.clientPersonaGuidance) && { personaGuidance: persona.guidance }),
      ...(!client && { direction: this.director.guidanceFor(conversation, userTurn) }),
      tokenFactor,
      userMessage: userMessage.content,
      budgetTokens: checkpoint.contextTokens - maxTokens,
      ...(safety.flagged && { safetyInstructions: this.env.SAFETY_INSTRUCTIONS }),
    });
    return {
      safety,
      persona,
      userTurn,
      characterName,
      userName,
      prompt: prompt.messages,
      history: history.slice(prompt.droppedTurns),
      dropped: earlier.slice(0, prompt.droppedTurns),
      uncalibratedEstimate: prompt.estimatedTokens / tokenFactor,
    };
  }

  /**
   * Whether `build` gives `guess` the context it gives `stored`: the same message (id and text), history, turn,
   * names, card, summary, client prompt, director note and profile, which is all it reads. Only the message's time may differ
   * (the guess's is when the message arrived, the stored one when the statement ran): the persona's observations
   * decay over minutes to years, so those milliseconds change nothing.
   */
  sameContext(guess: TurnInputs, stored: TurnInputs): boolean {
    return (
      guess.userMessage.id === stored.userMessage.id &&
      guess.userMessage.content === stored.userMessage.content &&
      guess.userTurn === stored.userTurn &&
      guess.userName === stored.userName &&
      guess.conversation.summary === stored.conversation.summary &&
      guess.conversation.clientSystemPrompt === stored.conversation.clientSystemPrompt &&
      guess.conversation.clientPersonaGuidance === stored.conversation.clientPersonaGuidance &&
      isDeepStrictEqual(guess.conversation.clientSpeakers, stored.conversation.clientSpeakers) &&
      isDeepStrictEqual(guess.conversation.director, stored.conversation.director) &&
      sameHistory(guess.history, stored.history) &&
      sameProfile(guess.profile, stored.profile) &&
      isDeepStrictEqual(guess.card, stored.card)
    );
  }

  /** Learns from the endpoint's count of the prompt's tokens. */
  observeUsage(checkpointId: string, context: TurnContext, promptTokens: number): void {
    this.calibration.observe(checkpointId, context.uncalibratedEstimate, promptTokens);
  }
}

function sameHistory(a: readonly HistoryMessage[], b: readonly HistoryMessage[]): boolean {
  return (
    a.length === b.length &&
    a.every((m, i) => {
      const n = b[i];
      return (
        n && m.role === n.role && m.content === n.content && m.createdAt.getTime() === n.createdAt.getTime()
      );
    })
  );
}

/** Key order aside (the database's JSON has its own), the same profile, or none on both sides. */
function sameProfile(a: UserProfileEntity | null, b: UserProfileEntity | null): boolean {
  if (!a || !b) return a === b;
  return a.inferenceEnabled === b.inferenceEnabled && isDeepStrictEqual(a.profile, b.profile);
}
