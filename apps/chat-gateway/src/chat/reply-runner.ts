import type { TurnInputs } from '../conversations/turn-inputs';
import { ModelError } from '@echoloop/llm';
import type { CheckpointEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { Counter } from 'prom-client';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ExperimentRouter, type Route } from '../experiments/experiment-router';
import { assessCrisis, type CrisisAssessment } from '../safety/crisis-detector';
import { AfterReply } from './after-reply';
import { GatedSink } from './gated-sink';
import type { RunningReply } from './in-flight-registry';
import { ReplyStreamer, type StreamedReply } from './reply-streamer';
import { TurnContextBuilder, type TurnContext } from './turn-context';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { TurnRecorder } from './turn-recorder';
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
 * A reply started from a guess of the turn's inputs, before the statement stored the message: its deltas wait until
 * `finish` opens them to the registered reply.
 */
export interface EarlyReply {
  replyId: string;
  abort: AbortController;
  /**
   * What the stored inputs make of it: it goes on (with the context built again when the inputs differ only where
   * the prompt does not show) or, when the prompt differs, null: the request must start again.
   */
  confirm(stored: TurnInputs): { rebuilt: boolean } | null;
  /** The confirmed reply, to done, as `running`. */
  finish(stored: TurnInputs, running: RunningReply): Promise<void>;
}

/**
 * A reply from its inputs to `done`, in the turn's order: the route and prompt, the stream, the commit with its
 * event, and what is due after it off the hot path (the rolling summary, the deep persona extraction, the
 * director). A failure at any step is the client's error.
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
    private readonly after: AfterReply,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.flagged = metrics.counter('chat_turns_flagged_total', 'Turns flagged by the crisis detector', [
      'category',
    ]);
  }

  /** A reply from the stored inputs. Never rejects: a failure reaches the client as its error. */
  async run(inputs: TurnInputs, running: RunningReply, regenerated: boolean): Promise<void> {
    let prepared: Prepared;
    let streaming: Promise<StreamedReply>;
    try {
      prepared = await this.prepare(inputs);
      const { replyId, abort, sink } = running;
      streaming = this.stream(prepared, inputs.conversation.id, replyId, abort.signal, sink);
    } catch (error) {
      return this.fail(inputs, running, error);
    }
    await this.complete(inputs, running, prepared, streaming, regenerated);
  }

  /**
   * The model request started from the conversation's guessed inputs, while the statement stores the message and
   * reads the real ones; null when the guess cannot even be prepared (the turn goes on from the statement).
   */
  async startEarly(guess: TurnInputs): Promise<EarlyReply | null> {
    let prepared: Prepared;
    try {
      prepared = await this.prepare(guess);
    } catch {
      return null;
    }
    const replyId = randomUUID();
    const abort = new AbortController();
    const gate = new GatedSink();
    const streaming = this.stream(prepared, guess.conversation.id, replyId, abort.signal, gate);
    // Observed now: it may fail before the turn awaits it (or be cancelled and never awaited).
    streaming.catch(() => undefined);
    let kept = prepared;
    return {
      replyId,
      abort,
      confirm: (stored) => {
        const confirmed = this.confirmed(guess, stored, prepared);
        if (!confirmed) return null;
        kept = { ...prepared, context: confirmed.context };
        return { rebuilt: confirmed.rebuilt };
      },
      finish: (stored, running) => {
        // After the ack has gone out (an SSE response writes its headers and ack first), and before done.
        const opened = new Promise<void>((resolve) => setImmediate(() => resolve(gate.open(running.sink))));
        return this.complete(
          stored,
          running,
          kept,
          opened.then(() => streaming),
          false,
        );
      },
    };
  }

  /**
   * The context a turn started from `guess` keeps, now that the stored inputs are known: its own when the inputs
   * are the same; one built from the stored inputs when they differ in what the prompt does not show (the profile
   * moved, in another conversation or by a deep extraction, without changing the guidance); null when the prompt
   * differs, and the request must start again.
   */
  private confirmed(
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
  private async prepare(inputs: TurnInputs): Promise<Prepared> {
    const route = await this.router.route(inputs.conversation.userId);
    const { checkpoint } = route;
    const maxTokens = checkpoint.decoding.maxTokens ?? this.env.LLM_MAX_TOKENS;
    const safety = assessCrisis(inputs.userMessage.content);
    const context = this.contexts.build(inputs, checkpoint, maxTokens, safety);
    return { route, checkpoint, maxTokens, safety, context };
  }

  private stream(
    { checkpoint, maxTokens, context }: Prepared,
    conversationId: string,
    replyId: string,
    signal: AbortSignal,
    sink: TurnSink,
  ): Promise<StreamedReply> {
    return this.streamer.stream({ checkpoint, maxTokens, context, conversationId, replyId, signal, sink });
  }

  /** Waits for the reply, commits it with its event, says done, then starts what is due off the hot path. */
  private async complete(
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
      this.after.schedule(inputs, context, recorded, checkpoint);
    } catch (error) {
      this.fail(inputs, running, error, checkpoint.id);
    }
  }

  private fail(inputs: TurnInputs, running: RunningReply, error: unknown, checkpointId = ''): void {
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
}
