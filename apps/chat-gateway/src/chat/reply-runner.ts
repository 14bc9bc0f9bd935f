import type { TurnInputs } from '../conversations/turn-inputs';
import { ModelError } from '@echoloop/llm';
import type { CheckpointEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { deepExtractionDue } from '@echoloop/persona';
import { Inject, Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { DirectorService } from '../director/director.service';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ExperimentRouter, type Route } from '../experiments/experiment-router';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import { assessCrisis, type CrisisAssessment } from '../safety/crisis-detector';
import type { RunningReply } from './in-flight-registry';
import { ReplyStreamer, type StreamedReply } from './reply-streamer';
import { TurnContextBuilder, type TurnContext } from './turn-context';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { TurnRecorder, type RecordedTurn } from './turn-recorder';
import type { TurnSink } from './turn-sink';

export const HISTORY_LIMIT = 60;

/** A turn's checkpoint (by route) and prompt, ready to stream. */
export interface Prepared {
  route: Route;
  checkpoint: CheckpointEntity;
  maxTokens: number;
  safety: CrisisAssessment;
  context: TurnContext;
}

/**
 * A reply from its stored inputs to `done`: the route and prompt, the stream, the commit with its event, and
 * what is due after it off the hot path (the rolling summary, the deep persona extraction, the director).
 */
@Injectable()
export class ReplyRunner {
  private readonly flagged: Counter<'category'>;
  private readonly historyLimit = HISTORY_LIMIT;

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly router: ExperimentRouter,
    private readonly contexts: TurnContextBuilder,
    private readonly streamer: ReplyStreamer,
    private readonly recorder: TurnRecorder,
    private readonly guesses: TurnInputsCache,
    private readonly memory: MemoryService,
    private readonly deepPersona: DeepExtractionService,
    private readonly director: DirectorService,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.flagged = metrics.counter('chat_turns_flagged_total', 'Turns flagged by the crisis detector', [
      'category',
    ]);
  }

  /**
   * The context a turn started from `guess` keeps, now that the stored inputs are known: its own when the inputs
   * are the same; one built from the stored inputs when they differ in what the prompt does not show (the profile
   * moved, in another conversation or by a deep extraction, without changing the guidance); null when the prompt
   * differs, and the request must start again.
   */
  confirmed(
    guess: TurnInputs,
    stored: TurnInputs,
    prepared: Prepared,
  ): { context: TurnContext; rebuilt: boolean } | null {
    if (this.contexts.sameContext(guess, stored)) return { context: prepared.context, rebuilt: false };
    const context = this.contexts.build(stored, prepared.checkpoint, prepared.maxTokens, prepared.safety);
    const same = JSON.stringify(context.prompt) === JSON.stringify(prepared.context.prompt);
    return same ? { context, rebuilt: true } : null;
  }

  /** The checkpoint this user's turn goes to (an experiment's arm, or the default) and the prompt, in process. */
  async prepare(inputs: TurnInputs): Promise<Prepared> {
    const route = await this.router.route(inputs.conversation.userId);
    const { checkpoint } = route;
    const maxTokens = checkpoint.decoding.maxTokens ?? this.env.LLM_MAX_TOKENS;
    const safety = assessCrisis(inputs.userMessage.content);
    const context = this.contexts.build(inputs, checkpoint, maxTokens, safety);
    return { route, checkpoint, maxTokens, safety, context };
  }

  stream(
    { checkpoint, maxTokens, context }: Prepared,
    conversationId: string,
    replyId: string,
    signal: AbortSignal,
    sink: TurnSink,
  ): Promise<StreamedReply> {
    return this.streamer.stream({ checkpoint, maxTokens, context, conversationId, replyId, signal, sink });
  }

  /** Waits for the reply, commits it with its event, says done, then starts what is due off the hot path. */
  async complete(
    inputs: TurnInputs,
    running: RunningReply,
    prepared: Prepared,
    streaming: Promise<StreamedReply>,
    regenerated: boolean,
  ): Promise<void> {
    const { checkpoint, context, route } = prepared;
    try {
      for (const category of prepared.safety.categories) this.flagged.inc({ category });
      const streamed = await streaming;
      this.contexts.observeUsage(checkpoint.id, context, streamed.usage.promptTokens);
      const recorded = await this.recorder.reply(
        inputs,
        context,
        streamed,
        route,
        regenerated,
        running.slotId,
      );
      // The commit gave the stream slot back.
      running.slotId = undefined;
      if (regenerated) this.guesses.forget(inputs.conversation.id);
      else this.guesses.advance(inputs, context.persona.merged, recorded.reply, this.historyLimit);
      const { reasoning: _hidden, ...done } = streamed;
      running.sink.done({ ...done, checkpointId: checkpoint.id });
      this.afterReply(inputs, context, recorded, checkpoint);
    } catch (error) {
      this.fail(inputs, running, error, checkpoint.id);
    }
  }

  fail(inputs: TurnInputs, running: RunningReply, error: unknown, checkpointId = ''): void {
    const { conversation, userMessage } = inputs;
    const { replyId } = running;
    this.guesses.forget(conversation.id);
    const failure =
      error instanceof ModelError
        ? { code: error.code, message: error.message, retryable: error.retryable }
        : { code: 'internal', message: 'The reply could not be completed', retryable: true };
    if (!(error instanceof ModelError)) {
      // Ids only: the error of a failed insert carries the turn's text as query parameters (the serializer
      // drops them too).
      this.logger.error(
        { err: error, conversationId: conversation.id, userMessageId: userMessage.id, replyId, checkpointId },
        'turn failed',
      );
    }
    running.sink.error({ conversationId: conversation.id, replyId, ...failure });
  }

  /** Off the hot path: the rolling summary, the deep persona extraction and the director, when they are due. */
  private afterReply(
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
