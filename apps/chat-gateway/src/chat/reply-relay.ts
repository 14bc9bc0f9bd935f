import { Injectable, Logger } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { InFlightRegistry, type ReplyInProgress, type TurnAck } from './in-flight-registry';
import type { TurnSink } from './turn-sink';

const STOP = 'reply:stop';
const RESUME = 'reply:resume';
const JOIN = 'reply:join';

interface StopRequest {
  userId: string;
  replyId: string;
}

interface ResumeRequest {
  userId: string;
  conversationId: string;
  socketId: string;
}

interface JoinRequest {
  userId: string;
  userMessageId: string;
  /** The socket to attach, when the client is one. */
  socketId: string | undefined;
}

/**
 * Stops, resumes and resends for replies streaming in another gateway process, through socket.io's server-side events
 * (PostgresIoAdapter): the process running the reply stops it, or attaches the resuming socket (by its id, which
 * reaches it wherever it is connected) and answers with the text so far. The state stays in InFlightRegistry.
 */
@Injectable()
export class ReplyRelay {
  private readonly logger = new Logger(ReplyRelay.name);
  private namespace: Namespace | undefined;

  constructor(private readonly registry: InFlightRegistry) {}

  attach(namespace: Namespace): void {
    this.namespace = namespace;
    namespace.on(STOP, ({ userId, replyId }: StopRequest, answer: (stopped: boolean) => void) =>
      answer(this.registry.stop(userId, replyId)),
    );
    namespace.on(
      RESUME,
      ({ userId, conversationId, socketId }: ResumeRequest, answer: (replies: ReplyInProgress[]) => void) =>
        answer(this.registry.resume(userId, conversationId, this.socketSink(namespace, socketId))),
    );
    namespace.on(
      JOIN,
      ({ userId, userMessageId, socketId }: JoinRequest, answer: (ack: TurnAck | null) => void) =>
        answer(
          this.registry.joinFor(
            userId,
            userMessageId,
            socketId ? this.socketSink(namespace, socketId) : undefined,
          ) ?? null,
        ),
    );
  }

  /**
   * The reply to this user message streaming in another process (a resend that reached another process than the
   * send), with the socket attached to it when `socketId` is given; null when no process streams one.
   */
  async join(userId: string, userMessageId: string, socketId: string | undefined): Promise<TurnAck | null> {
    const answers = await this.ask<TurnAck | null>(JOIN, {
      userId,
      userMessageId,
      socketId,
    } satisfies JoinRequest);
    return answers.find((ack) => ack !== null) ?? null;
  }

  /** Stops the user's reply wherever it streams; false when no process has it. */
  async stop(userId: string, replyId: string): Promise<boolean> {
    const answers = await this.ask<boolean>(STOP, { userId, replyId } satisfies StopRequest);
    return answers.some(Boolean);
  }

  /** Attaches the socket to the user's replies in this conversation streaming in other processes. */
  async resume(userId: string, conversationId: string, socketId: string): Promise<ReplyInProgress[]> {
    const answers = await this.ask<ReplyInProgress[]>(RESUME, {
      userId,
      conversationId,
      socketId,
    } satisfies ResumeRequest);
    return answers.flat();
  }

  /** Every other process's answer (those that answered in time). */
  private ask<T>(event: string, request: object): Promise<T[]> {
    const namespace = this.namespace;
    if (!namespace) return Promise.resolve([]);
    return new Promise((resolve) => {
      try {
        // The adapter waits up to 5 s for every process it knows (one that died is forgotten within seconds).
        namespace.serverSideEmit(event, request, (error: Error | null, answers: T[]) => {
          if (error) this.logger.warn(`${event}: ${error.message}`);
          resolve(answers ?? []);
        });
      } catch (error) {
        // The in-memory adapter (a single process without PostgresIoAdapter) has no other process to ask.
        this.logger.debug(`${event}: ${(error as Error).message}`);
        resolve([]);
      }
    });
  }

  /** A client connected to another process, reached by its socket id through the adapter. */
  private socketSink(namespace: Namespace, socketId: string): TurnSink {
    const to = () => namespace.to(socketId);
    return {
      key: socketId,
      delta: (event) => to().emit('message:delta', event),
      done: (event) => to().emit('message:done', event),
      error: (event) => to().emit('message:error', event),
    };
  }
}
