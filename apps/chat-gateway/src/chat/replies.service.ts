import type { MessageEntity } from '@echoloop/persistence';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConversationsService } from '../conversations/conversations.service';
import { InFlightRegistry, type ReplyInProgress } from './in-flight-registry';
import { ReplyRelay } from './reply-relay';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { TurnRecorder } from './turn-recorder';
import type { TurnSink } from './turn-sink';
import { TurnRepository } from './turn.repository';

export const replyNotFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Reply not found' } });

/**
 * What a user does with replies once started (TurnService starts them): stop one, pick one up again after a
 * reconnect, keep one alternative, edit one, find one of their own.
 */
@Injectable()
export class RepliesService {
  constructor(
    private readonly repository: TurnRepository,
    private readonly registry: InFlightRegistry,
    private readonly relay: ReplyRelay,
    private readonly recorder: TurnRecorder,
    private readonly guesses: TurnInputsCache,
    private readonly conversations: ConversationsService,
  ) {}

  /** An assistant reply in one of the user's conversations; 404 for anything else. */
  async ownedReply(userId: string, replyId: string): Promise<MessageEntity> {
    const reply = await this.repository.ownedReply(userId, replyId);
    if (!reply) throw replyNotFound();
    return reply;
  }

  /** Records which alternative the user kept: it becomes the one later turns see. */
  async select(userId: string, replyId: string): Promise<void> {
    const reply = await this.ownedReply(userId, replyId);
    await this.recorder.kept(userId, reply);
    this.guesses.forget(reply.conversationId);
  }

  /**
   * The user's text in place of a finished reply's: later turns continue from it, the model's text is kept, and the
   * labeller hears of it (an edit is the strongest preference a user gives). 409 while the reply is not finished.
   */
  async edit(userId: string, replyId: string, content: string): Promise<MessageEntity> {
    const reply = await this.ownedReply(userId, replyId);
    if (reply.status !== 'complete' && reply.status !== 'cancelled')
      throw new ConflictException({
        error: { code: 'reply_not_finished', message: 'Only a finished reply can be edited' },
      });
    const edited = await this.recorder.edited(userId, reply, content);
    this.guesses.forget(reply.conversationId);
    return edited;
  }

  /** A client back after a dropped connection or a reload picks up the replies still streaming here. */
  async resume(userId: string, conversationId: string, sink: TurnSink): Promise<ReplyInProgress[]> {
    await this.conversations.owned(userId, conversationId);
    const here = this.registry.resume(userId, conversationId, sink);
    // A socket (its key is its id) also picks up those streaming in other processes.
    const elsewhere = sink.key ? await this.relay.resume(userId, conversationId, sink.key) : [];
    return [...here, ...elsewhere];
  }

  /** Cancels a running reply (and its upstream request) wherever it streams; false when there is none for this user. */
  async stop(userId: string, replyId: string): Promise<boolean> {
    return this.registry.stop(userId, replyId) || this.relay.stop(userId, replyId);
  }
}
