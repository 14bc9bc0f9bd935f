import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { TurnSink } from './turn-sink';

export interface TurnAck {
  userMessageId: string;
  replyId: string;
}

/** A reply still streaming, as a resuming client picks it up: its deltas so far, up to `index`, as one text. */
export interface ReplyInProgress {
  replyId: string;
  userMessageId: string;
  index: number;
  content: string;
}

/** One reply streaming in this process. */
export interface RunningReply {
  userId: string;
  conversationId: string;
  userMessageId: string;
  replyId: string;
  abort: AbortController;
  /** The shared concurrent-stream slot it holds (`turn_gates`), given back when it ends. */
  slotId: string | undefined;
  /** Every client of the reply (the sender, duplicate sends, resumed sockets), read at each event. */
  sink: TurnSink;
}

interface Entry extends RunningReply {
  clientMessageId: string | null;
  sinks: TurnSink[];
  /** What the deltas so far carried, for a client that resumes mid-reply. */
  streamed: string;
  lastIndex: number;
}

/**
 * The turn path's in-process state, in one place: the replies streaming now (by user message), the sends being
 * stored (so a duplicate joins the first), and per user the turns admitted but not yet streaming (they hold a
 * concurrent-stream slot).
 */
@Injectable()
export class InFlightRegistry {
  private readonly running = new Map<string, Entry>();
  private readonly sending = new Map<string, Promise<TurnAck>>();
  private readonly starting = new Map<string, number>();

  /**
   * The same message being stored right now, if it is: its ack once stored (undefined if that failed). Read with
   * no await before `trackSend`, so two sends in one tick cannot both miss each other.
   */
  pendingSend(key: string): Promise<TurnAck | undefined> | undefined {
    return this.sending.get(key)?.catch(() => undefined);
  }

  /** Runs a send, known by its key while it runs so a duplicate can wait for it (`pendingSend`). */
  async trackSend(key: string, send: () => Promise<TurnAck>): Promise<TurnAck> {
    const attempt = send();
    this.sending.set(key, attempt);
    try {
      return await attempt;
    } finally {
      if (this.sending.get(key) === attempt) this.sending.delete(key);
    }
  }

  /** Adds a client to the reply streaming for this user message, if one is. */
  join(userMessageId: string, sink: TurnSink): TurnAck | undefined {
    const entry = this.running.get(userMessageId);
    if (!entry) return undefined;
    entry.sinks.push(sink);
    return { userMessageId, replyId: entry.replyId };
  }

  /**
   * For another process asking: the user's reply streaming here for this user message, with `sink` added when
   * given (a socket connected there); undefined when there is none.
   */
  joinFor(userId: string, userMessageId: string, sink: TurnSink | undefined): TurnAck | undefined {
    const entry = this.running.get(userMessageId);
    if (!entry || entry.userId !== userId) return undefined;
    if (sink) entry.sinks.push(sink);
    return { userMessageId, replyId: entry.replyId };
  }

  /** Adds a client to the reply streaming for a resend of this message (known by its clientMessageId), if one is. */
  joinResend(conversationId: string, clientMessageId: string, sink: TurnSink): TurnAck | undefined {
    for (const entry of this.running.values()) {
      if (entry.conversationId === conversationId && entry.clientMessageId === clientMessageId) {
        return this.join(entry.userMessageId, sink);
      }
    }
    return undefined;
  }

  /**
   * Holds one of the user's concurrent-stream slots while `start` runs (the running reply holds it after).
   * `check` sees the count with no await before the slot is taken, so parallel turns cannot overrun it.
   */
  async withSlot<T>(userId: string, check: (streams: number) => void, start: () => Promise<T>): Promise<T> {
    check(this.streamsOf(userId) + (this.starting.get(userId) ?? 0));
    this.starting.set(userId, (this.starting.get(userId) ?? 0) + 1);
    try {
      return await start();
    } finally {
      const left = (this.starting.get(userId) ?? 1) - 1;
      if (left > 0) this.starting.set(userId, left);
      else this.starting.delete(userId);
    }
  }

  /**
   * Registers a new reply to this user message with its first client (and, when its model request started
   * earlier, that request's reply id and abort); `finish` removes it.
   */
  begin(
    userId: string,
    message: { id: string; conversationId: string; clientMessageId: string | null },
    sink: TurnSink,
    started: { replyId?: string; abort?: AbortController; slotId?: string } = {},
  ): RunningReply {
    const entry: Entry = {
      userId,
      conversationId: message.conversationId,
      userMessageId: message.id,
      clientMessageId: message.clientMessageId,
      replyId: started.replyId ?? randomUUID(),
      abort: started.abort ?? new AbortController(),
      slotId: started.slotId,
      sinks: [sink],
      streamed: '',
      lastIndex: -1,
      sink: {
        delta: (event) => {
          entry.streamed += event.delta;
          entry.lastIndex = event.index;
          entry.sinks.forEach((s) => s.delta(event));
        },
        done: (event) => entry.sinks.forEach((s) => s.done(event)),
        error: (event) => entry.sinks.forEach((s) => s.error(event)),
      },
    };
    this.running.set(message.id, entry);
    return entry;
  }

  finish(reply: RunningReply): void {
    if (this.running.get(reply.userMessageId) === reply) this.running.delete(reply.userMessageId);
  }

  /**
   * Attaches a client back after a dropped connection or a reload to the user's replies streaming in this
   * conversation; a sink with the same `key` (one socket resuming twice) replaces the earlier one.
   */
  resume(userId: string, conversationId: string, sink: TurnSink): ReplyInProgress[] {
    const replies: ReplyInProgress[] = [];
    for (const entry of this.running.values()) {
      if (entry.userId !== userId || entry.conversationId !== conversationId) continue;
      entry.sinks = [...entry.sinks.filter((s) => !sink.key || s.key !== sink.key), sink];
      replies.push({
        replyId: entry.replyId,
        userMessageId: entry.userMessageId,
        index: entry.lastIndex,
        content: entry.streamed,
      });
    }
    return replies;
  }

  /** Cancels a running reply of this user (and its upstream request); false when there is none. */
  stop(userId: string, replyId: string): boolean {
    for (const entry of this.running.values()) {
      if (entry.replyId === replyId && entry.userId === userId) {
        entry.abort.abort();
        return true;
      }
    }
    return false;
  }

  /** The shared stream slots held by the replies streaming here (renewed while they stream). */
  slots(): { userId: string; slotId: string }[] {
    const held: { userId: string; slotId: string }[] = [];
    for (const { userId, slotId } of this.running.values()) if (slotId) held.push({ userId, slotId });
    return held;
  }

  private streamsOf(userId: string): number {
    let count = 0;
    for (const entry of this.running.values()) if (entry.userId === userId) count++;
    return count;
  }
}
