import type { TurnInputs } from '../conversations/turn-inputs';
import type { ReplyRecord } from './reply-commit.sql';
import { chatFeedbackV2, chatTurnCompletedV1, createEvent } from '@echoloop/contracts';
import type { MessageEntity } from '@echoloop/persistence';
import { enqueueEvent, OutboxRelay, outboxRow } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import type { Route } from '../experiments/experiment-router';
import { PersonaService } from '../persona/persona.service';
import type { StreamedReply } from './reply-streamer';
import type { TurnContext } from './turn-context';
import { TurnRepository } from './turn.repository';

const SERVICE = 'chat-gateway';

export interface RecordedTurn {
  /** Null when nothing was merged (inference off, or a regenerated reply). */
  userTurnsSinceDeep: number | null;
  reply: MessageEntity;
}

/**
 * Commits what a turn produced, each with its event in the same transaction (the outbox): a reply with
 * `chat.turn.completed.v1` and the persona's observations, a kept alternative and an edited reply with
 * `chat.feedback.v2`.
 */
@Injectable()
export class TurnRecorder {
  constructor(
    private readonly turns: TurnRepository,
    private readonly persona: PersonaService,
    private readonly relay: OutboxRelay,
  ) {}

  /**
   * Commits a streamed reply in one statement: the reply, its `chat.turn.completed.v1` event, the stream slot given
   * back, and the persona's observations when the profile is still the one the turn read (if another turn changed
   * it meanwhile, they are merged again under the row lock, so concurrent turns lose nothing).
   */
  async reply(
    inputs: TurnInputs,
    context: TurnContext,
    reply: StreamedReply,
    route: Route,
    regenerated: boolean,
    slotId: string | undefined,
  ): Promise<RecordedTurn> {
    const { userMessage, conversation } = inputs;
    const userId = conversation.userId;
    const record: ReplyRecord = {
      id: reply.replyId,
      conversationId: reply.conversationId,
      parentId: userMessage.id,
      content: reply.content,
      reasoning: reply.reasoning,
      status: reply.finishReason === 'cancelled' ? 'cancelled' : 'complete',
      finishReason: reply.finishReason,
      promptTokens: reply.usage.promptTokens,
      completionTokens: reply.usage.completionTokens,
      ttftMs: reply.latencyMs.ttft,
      totalMs: reply.latencyMs.total,
      checkpointId: route.checkpoint.id,
      safetyCategories: context.safety.categories,
    };
    const event = createEvent(
      chatTurnCompletedV1,
      {
        turnId: record.id,
        conversationId: reply.conversationId,
        userId,
        characterId: conversation.characterId,
        checkpointId: route.checkpoint.id,
        experimentId: route.experimentId,
        armId: route.armId,
        userMessage: {
          id: userMessage.id,
          content: userMessage.content,
          createdAt: userMessage.createdAt.toISOString(),
        },
        assistantMessage: {
          id: record.id,
          content: record.content,
          // Replaced by the stored time in the statement.
          createdAt: new Date().toISOString(),
          reasoning: reply.reasoning,
          finishReason: reply.finishReason,
          usage: reply.usage,
        },
        history: context.history,
        personaSnapshot: context.persona.snapshot,
        timings: { ttftMs: reply.latencyMs.ttft, totalMs: reply.latencyMs.total },
        safety: context.safety,
      },
      SERVICE,
    );
    const observe = context.persona.enabled && !regenerated;
    const committed = await this.turns.commitReply(record, {
      userId,
      event: outboxRow(chatTurnCompletedV1, event, reply.conversationId),
      createdAtPath: ['payload', 'assistantMessage', 'createdAt'],
      slotId,
      profile: observe ? { merged: context.persona.merged, seen: inputs.profile?.profile ?? null } : null,
    });
    this.relay.wake();
    const userTurnsSinceDeep =
      observe && committed.userTurnsSinceDeep === null
        ? await this.persona.mergeNow(userId, context.persona.observations)
        : committed.userTurnsSinceDeep;
    return { userTurnsSinceDeep, reply: committed.saved };
  }

  /** The user kept this alternative: later turns see it, and the others become its rejected pairs. */
  async kept(userId: string, reply: MessageEntity): Promise<void> {
    const parentId = reply.parentId;
    if (!parentId) return;
    await this.turns.keepAlternative(reply, async (tx, rejected) => {
      const event = createEvent(
        chatFeedbackV2,
        {
          kind: 'swipe',
          conversationId: reply.conversationId,
          userId,
          parentId,
          selectedTurnId: reply.id,
          rejectedTurnIds: rejected,
        },
        SERVICE,
      );
      await enqueueEvent(tx, chatFeedbackV2, event, reply.conversationId);
    });
    this.relay.wake();
  }

  /**
   * The user's text in place of the reply's (TurnRepository.editReply) with its `chat.feedback.v2` edit; the reply as
   * it stands when nothing changed. A greeting is edited too, but is no turn: it has no event.
   */
  async edited(userId: string, reply: MessageEntity, content: string): Promise<MessageEntity> {
    const edited = await this.turns.editReply(reply.id, content, async (tx, saved) => {
      if (!saved.parentId) return;
      const event = createEvent(
        chatFeedbackV2,
        {
          kind: 'edit',
          conversationId: saved.conversationId,
          userId,
          turnId: saved.id,
          checkpointId: saved.checkpointId,
          content: saved.editedAt ? saved.content : null,
          editedAt: saved.editedAt?.toISOString() ?? null,
        },
        SERVICE,
      );
      await enqueueEvent(tx, chatFeedbackV2, event, saved.conversationId);
    });
    if (!edited) return reply;
    this.relay.wake();
    return edited;
  }
}
