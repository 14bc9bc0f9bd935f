import type { TurnInputs } from '../conversations/turn-inputs';
import { type GateRefusal, isRefusal } from '../limits/turn-gate.sql';
import { MetricsService, RetryAfterException } from '@echoloop/platform';
import { traced } from '@echoloop/tracing';
import { Injectable, UnprocessableEntityException } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { Counter } from 'prom-client';
import { conversationNotFound } from '../conversations/conversations.service';
import { LimitsService } from '../limits/limits.service';
import { StreamSlots } from './stream-slots';
import type { SendMessageInput } from './chat.schemas';
import { InFlightRegistry, type RunningReply, type TurnAck } from './in-flight-registry';
import { replyNotFound } from './replies.service';
import { isUnanswered, ResendReplies } from './resend-replies';
import { HISTORY_LIMIT, ReplyRunner } from './reply-runner';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import type { TurnSink } from './turn-sink';
import { TurnRepository } from './turn.repository';

export type { ReplyInProgress, TurnAck } from './in-flight-registry';

/** A message to send, with the id it is stored with. */
type Send = SendMessageInput & { messageId: string };

/**
 * One chat turn, end to end. One statement checks the conversation is the user's, stores the message
 * (idempotently: a resend never makes a second turn) and reads everything the prompt needs; the reply then streams
 * from the checkpoint's endpoint, and is committed with its `chat.turn.completed.v1` event. Nothing a user sent is
 * lost, whatever fails after that first statement.
 */
@Injectable()
export class TurnService {
  private readonly earlyStarts: Counter<'outcome'>;

  constructor(
    private readonly repository: TurnRepository,
    private readonly registry: InFlightRegistry,
    private readonly runner: ReplyRunner,
    private readonly guesses: TurnInputsCache,
    private readonly limits: LimitsService,
    private readonly slots: StreamSlots,
    private readonly resends: ResendReplies,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.earlyStarts = metrics.counter(
      'chat_early_starts_total',
      'Model requests started before the user message was stored: kept (the guess was right), rebuilt (kept, its context built again: the stored inputs differ where the prompt does not show), restarted (the guess was stale) or cancelled (the write failed or was a resend)',
      ['outcome'],
    );
  }

  /** Stores the user message (idempotently) and starts the reply; resolves with the ids for the ack. */
  async send(userId: string, input: SendMessageInput, sink: TurnSink): Promise<TurnAck> {
    const key = `${input.conversationId}:${input.clientMessageId}`;
    // A duplicate of a message being stored, or streaming, joins its reply.
    const pending = this.registry.pendingSend(key);
    if (pending) {
      const ack = await pending;
      const joined = ack && this.registry.join(ack.userMessageId, sink);
      if (joined) return joined;
    }
    const joined = this.registry.joinResend(input.conversationId, input.clientMessageId, sink);
    if (joined) return joined;
    return this.registry.trackSend(key, () =>
      this.registry.withSlot(
        userId,
        (streams) => this.limits.checkStreams(streams),
        async () => {
          const slotId = randomUUID();
          const send = { ...input, messageId: randomUUID() };
          const guess = this.guesses.next(userId, input.conversationId, {
            id: send.messageId,
            content: input.content,
          });
          if (guess) return this.sendEarly(userId, send, guess, sink, slotId);
          return this.fromStatement(userId, input, sink, slotId, await this.store(userId, send, slotId));
        },
      ),
    );
  }

  /** What the turn's statement said, for a turn that starts the model request only now. */
  private fromStatement(
    userId: string,
    input: SendMessageInput,
    sink: TurnSink,
    slotId: string,
    stored: TurnInputs | GateRefusal | null,
  ): Promise<TurnAck> | TurnAck {
    if (isRefusal(stored)) return this.refused(userId, input, sink, stored);
    if (stored) return this.start(stored, sink, false, slotId);
    return this.notSent(userId, input, sink, slotId);
  }

  /**
   * The shared gate said no (nothing was taken): over the rate or the quota, a resend of a stored message is still
   * answered.
   */
  private refused(
    userId: string,
    input: SendMessageInput,
    sink: TurnSink,
    refusal: GateRefusal,
  ): Promise<TurnAck> {
    // A resend is still answered (its reply may be streaming in another process), but over the stream limit no
    // reply is started for it.
    return this.resend(
      userId,
      input,
      sink,
      this.limits.refusal(refusal),
      refusal.refused !== 'too_many_streams',
    );
  }

  /** Nothing was inserted (a resend, or not the user's conversation): the slot, token and quota turn go back. */
  private notSent(userId: string, input: SendMessageInput, sink: TurnSink, slotId: string): Promise<TurnAck> {
    this.slots.giveBack(userId, { slotId, token: true });
    return this.resend(userId, input, sink, conversationNotFound());
  }

  /**
   * The model request starts from the conversation's guessed inputs while the statement stores the message and
   * reads the real ones; its deltas wait until that write commits. A failed write cancels the request (the client
   * gets the error, nothing is stored); a stale guess (the prompt differs) cancels it and starts again.
   */
  private async sendEarly(
    userId: string,
    input: Send,
    guess: TurnInputs,
    sink: TurnSink,
    slotId: string,
  ): Promise<TurnAck> {
    const early = await this.runner.startEarly(guess);
    if (!early) {
      // No early start: the turn goes on from what the statement says (its own prepare reports the failure).
      this.guesses.forget(input.conversationId);
      return this.fromStatement(userId, input, sink, slotId, await this.store(userId, input, slotId));
    }
    // The statement goes once the model requests of the messages that arrived together are out: a model's first
    // token takes longer than the statement.
    const storing = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.store(userId, input, slotId),
    );
    const cancel = (outcome: 'restarted' | 'cancelled') => {
      early.abort.abort();
      this.earlyStarts.inc({ outcome });
    };
    let inputs: TurnInputs | GateRefusal | null;
    try {
      inputs = await storing;
    } catch (error) {
      cancel('cancelled');
      this.guesses.forget(input.conversationId);
      throw error;
    }
    if (isRefusal(inputs)) {
      cancel('cancelled');
      return this.refused(userId, input, sink, inputs);
    }
    if (!inputs) {
      cancel('cancelled');
      return this.notSent(userId, input, sink, slotId);
    }
    const confirmed = early.confirm(inputs);
    if (!confirmed) {
      cancel('restarted');
      return this.start(inputs, sink, false, slotId);
    }
    this.earlyStarts.inc({ outcome: confirmed.rebuilt ? 'rebuilt' : 'kept' });
    const { replyId, abort } = early;
    const running = this.registry.begin(userId, inputs.userMessage, sink, { replyId, abort, slotId });
    void early.finish(inputs, running).finally(() => this.finish(running));
    return { userMessageId: inputs.userMessage.id, replyId };
  }

  /** The one statement before the reply: a database failure is the client's clear, retryable error. */
  private async store(userId: string, input: Send, slotId: string): Promise<TurnInputs | GateRefusal | null> {
    try {
      return await this.repository.gatedInputs(
        userId,
        { kind: 'send', ...input },
        HISTORY_LIMIT,
        this.limits.gate(slotId),
      );
    } catch (error) {
      this.logger.warn({ err: error, conversationId: input.conversationId }, 'storing a message failed');
      throw new RetryAfterException(
        503,
        'message_not_stored',
        'Your message could not be saved; send it again',
        1,
      );
    }
  }

  /**
   * A message stored before: its reply again, never a second turn (a failed one is retried unless `mayStart` is
   * false). `notStored` is what the client gets when there is no such message, or no reply to give.
   */
  private async resend(
    userId: string,
    input: SendMessageInput,
    sink: TurnSink,
    notStored: unknown,
    mayStart = true,
  ): Promise<TurnAck> {
    const answer = await this.resends.answer(userId, input, HISTORY_LIMIT, sink);
    if (!answer) throw notStored;
    if (!isUnanswered(answer)) return answer;
    if (!mayStart) throw notStored;
    return this.start(answer.unanswered, sink, false);
  }

  /** A new alternative reply (swipe) to the same user message; earlier alternatives are kept. */
  async regenerate(userId: string, replyId: string, sink: TurnSink): Promise<TurnAck> {
    const slotId = randomUUID();
    const inputs = await this.repository.gatedInputs(
      userId,
      { kind: 'regenerate', replyId },
      HISTORY_LIMIT,
      this.limits.gate(slotId),
    );
    if (isRefusal(inputs)) throw this.limits.refusal(inputs);
    // Anything but a new reply gives the slot and token back.
    const giveBack = () => this.slots.giveBack(userId, { slotId, token: true });
    if (!inputs) {
      giveBack();
      if (!(await this.repository.ownedReply(userId, replyId))) throw replyNotFound();
      throw new UnprocessableEntityException({
        error: { code: 'not_regenerable', message: 'Only replies to a user message can be regenerated' },
      });
    }
    const joined = this.registry.join(inputs.userMessage.id, sink);
    if (joined) {
      giveBack();
      return joined;
    }
    try {
      return await this.registry.withSlot(
        userId,
        (streams) => this.limits.checkStreams(streams),
        () => Promise.resolve(this.start(inputs, sink, true, slotId)),
      );
    } catch (error) {
      giveBack();
      throw error;
    }
  }

  private start(inputs: TurnInputs, sink: TurnSink, regenerated: boolean, slotId?: string): TurnAck {
    const { conversation, userMessage } = inputs;
    // Two requests for the same message that raced past their checks share one reply.
    const joined = this.registry.join(userMessage.id, sink);
    if (joined) {
      if (slotId) this.slots.giveBack(conversation.userId, { slotId, token: true });
      return joined;
    }
    const running = this.registry.begin(conversation.userId, userMessage, sink, { slotId });
    void traced('chat reply', { attributes: { 'echoloop.regenerated': regenerated } }, () =>
      this.runner.run(inputs, running, regenerated),
    ).finally(() => this.finish(running));
    return { userMessageId: userMessage.id, replyId: running.replyId };
  }

  /** The reply ended: out of the registry, and its shared stream slot back. */
  private finish(running: RunningReply): void {
    this.registry.finish(running);
    this.slots.giveBack(running.userId, { slotId: running.slotId });
  }
}
