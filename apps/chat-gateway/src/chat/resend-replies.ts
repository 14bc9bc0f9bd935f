import type { TurnInputs } from '../conversations/turn-inputs';
import type { MessageEntity } from '@echoloop/persistence';
import { RetryAfterException } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InFlightRegistry, type TurnAck } from './in-flight-registry';
import { ReplyRelay } from './reply-relay';
import type { TurnDone, TurnSink } from './turn-sink';
import { TurnRepository } from './turn.repository';

/** A stored message with no reply to give: its turn failed before one was stored, and may be started again. */
export interface Unanswered {
  unanswered: TurnInputs;
}

/**
 * What a message sent again (a resend: the same clientMessageId) gets: the reply of its first send, never a second
 * turn. That reply is joined while it streams, here or in another process, or given whole once stored.
 */
@Injectable()
export class ResendReplies {
  constructor(
    private readonly repository: TurnRepository,
    private readonly registry: InFlightRegistry,
    private readonly relay: ReplyRelay,
  ) {}

  /** The ack of the first send's reply, its inputs when it has none, or null when no such message is stored. */
  async answer(
    userId: string,
    message: { conversationId: string; clientMessageId: string },
    historyLimit: number,
    sink: TurnSink,
  ): Promise<TurnAck | Unanswered | null> {
    const inputs = await this.repository.inputs(userId, { kind: 'stored', ...message }, historyLimit);
    if (!inputs) return null;
    const { id } = inputs.userMessage;
    const joined = this.registry.join(id, sink) ?? (await this.joinElsewhere(userId, id, sink));
    if (joined) return joined;
    const reply = await this.repository.latestReply(id);
    if (!reply) return { unanswered: inputs };
    // After the ack has gone out (a client matches done to the acked replyId).
    setImmediate(() => sink.done(storedReply(reply)));
    return { userMessageId: id, replyId: reply.id };
  }

  /**
   * A resend that reached another process than its reply: a socket is attached to that reply (its deltas reach it
   * through the adapter); a client without one (SSE) gets the reply once it is stored.
   */
  private async joinElsewhere(
    userId: string,
    userMessageId: string,
    sink: TurnSink,
  ): Promise<TurnAck | undefined> {
    const ack = await this.relay.join(userId, userMessageId, sink.key);
    if (!ack || sink.key) return ack ?? undefined;
    const stored = await waitForReply(() => this.repository.latestReply(userMessageId));
    if (!stored)
      throw new RetryAfterException(503, 'reply_in_progress', 'Your message is still being answered', 1);
    setImmediate(() => sink.done(storedReply(stored)));
    return ack;
  }
}

export const isUnanswered = (answer: TurnAck | Unanswered): answer is Unanswered => 'unanswered' in answer;

function storedReply(reply: MessageEntity): TurnDone {
  return {
    conversationId: reply.conversationId,
    replyId: reply.id,
    content: reply.content,
    finishReason:
      reply.status === 'cancelled' ? 'cancelled' : reply.finishReason === 'length' ? 'length' : 'stop',
    usage: { promptTokens: reply.promptTokens ?? 0, completionTokens: reply.completionTokens ?? 0 },
    latencyMs: { ttft: reply.ttftMs ?? 0, total: reply.totalMs ?? 0 },
    checkpointId: reply.checkpointId ?? '',
  };
}

/** Polls for a reply another process is streaming until it is stored, for at most `timeoutMs`. */
async function waitForReply(
  latest: () => Promise<MessageEntity | null>,
  timeoutMs = 120_000,
  everyMs = 250,
): Promise<MessageEntity | null> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const reply = await latest();
    if (reply) return reply;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return null;
}
