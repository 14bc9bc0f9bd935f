import { chatFeedbackV2, chatTurnCompletedV1, createEvent } from '@echoloop/contracts';
import { ModelError, type ChatMessage } from '@echoloop/llm';
import {
  CharacterEntity,
  type CheckpointEntity,
  ConversationEntity,
  MessageEntity,
  UserEntity,
  PG_ERROR,
  pgErrorCode,
} from '@echoloop/persistence';
import { enqueueEvent, MetricsService, OutboxRelay } from '@echoloop/platform';
import { Inject, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import type { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { characterCardSchema } from '@echoloop/character-cards';
import { deepExtractionDue } from '@echoloop/persona';
import { buildPrompt, buildStopStrings, StopTrimmer, TokenCalibration } from '@echoloop/prompt';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsService } from '../conversations/conversations.service';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { TtlCache } from '../common/ttl-cache';
import { LimitsService } from '../limits/limits.service';
import { DirectorService } from '../director/director.service';
import { ExperimentRouter, type Route } from '../experiments/experiment-router';
import { MemoryService } from '../memory/memory.service';
import { DeepExtractionService } from '../persona/deep-extraction.service';
import { PersonaService } from '../persona/persona.service';
import { assessCrisis, type CrisisAssessment } from '../safety/crisis-detector';
import type { SendMessageInput } from './chat.schemas';
import { DeltaBatcher } from './delta-batcher';
import { ThinkFilter } from './think-filter';
import type { TurnDone, TurnSink } from './turn-sink';

const HISTORY_LIMIT = 60;
const SERVICE = 'chat-gateway';

export interface TurnAck {
  userMessageId: string;
  replyId: string;
}

interface TurnInProgress {
  userId: string;
  conversation: ConversationEntity;
  userMessage: MessageEntity;
  replyId: string;
  /** A new alternative to a reply already given: the message was observed the first time. */
  regenerated: boolean;
}

interface InFlight {
  userId: string;
  conversationId: string;
  replyId: string;
  abort: AbortController;
  /** The sender's sink plus any duplicate sends and resumed clients while it streams. */
  sinks: TurnSink[];
  /** What the deltas so far carried, for a client that resumes mid-reply. */
  streamed: string;
  lastIndex: number;
}

/** A reply still streaming, as a resuming client picks it up: its deltas so far, up to `index`, as one text. */
export interface ReplyInProgress {
  replyId: string;
  userMessageId: string;
  index: number;
  content: string;
}

/**
 * One chat turn: the user message is stored at once (nothing a user sent is lost, whatever fails next), the reply
 * streams from the checkpoint's endpoint in small batches, and the reply plus its `chat.turn.completed.v1` event are
 * committed together.
 */
@Injectable()
export class TurnService {
  private readonly inFlight = new Map<string, InFlight>();
  /** Sends being stored, by conversation and clientMessageId. */
  private readonly sending = new Map<string, Promise<TurnAck>>();
  /** Per user: turns admitted but not yet in flight (they hold a concurrent-stream slot). */
  private readonly starting = new Map<string, number>();
  /** Hot-path lookups that rarely change: an edit shows within the ttl. */
  private readonly characters = new TtlCache<string, CharacterEntity>(10_000);
  private readonly displayNames = new TtlCache<string, string>(60_000);
  /** The endpoint's real prompt token counts, learnt from each reply's usage, correct our estimate. */
  private readonly calibration = new TokenCalibration();
  private readonly ttft: Histogram;
  private readonly flagged: Counter<'category'>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly conversations: ConversationsService,
    private readonly checkpoints: CheckpointsService,
    private readonly limits: LimitsService,
    private readonly memory: MemoryService,
    private readonly persona: PersonaService,
    private readonly deepPersona: DeepExtractionService,
    private readonly director: DirectorService,
    private readonly router: ExperimentRouter,
    private readonly relay: OutboxRelay,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.flagged = metrics.counter('chat_turns_flagged_total', 'Turns flagged by the crisis detector', [
      'category',
    ]);
    this.ttft = metrics.histogram(
      'chat_time_to_first_token_seconds',
      'Model time to first token',
      [],
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    );
  }

  /** Stores the user message (idempotently) and starts the reply; resolves with the ids for the ack. */
  async send(userId: string, input: SendMessageInput, sink: TurnSink): Promise<TurnAck> {
    const conversation = await this.conversations.owned(userId, input.conversationId);
    // A duplicate arriving while the first copy is still being stored waits for it and joins its reply.
    const key = `${input.conversationId}:${input.clientMessageId}`;
    const first = this.sending.get(key);
    if (first) {
      const ack = await first.catch(() => undefined);
      const joined = ack && this.join(ack.userMessageId, sink);
      if (joined) return joined;
    }
    const attempt = this.sendOnce(userId, conversation, input, sink);
    this.sending.set(key, attempt);
    try {
      return await attempt;
    } finally {
      if (this.sending.get(key) === attempt) this.sending.delete(key);
    }
  }

  private async sendOnce(
    userId: string,
    conversation: ConversationEntity,
    input: SendMessageInput,
    sink: TurnSink,
  ): Promise<TurnAck> {
    const { conversationId, clientMessageId } = input;
    const existing = await this.db
      .getRepository(MessageEntity)
      .findOneBy({ conversationId, clientMessageId });
    const answered = existing && (await this.answerResend(existing, sink));
    if (answered) return answered;
    return this.withStreamSlot(userId, async () => {
      // A resend of a message whose reply failed is a retry: it was counted when first sent.
      const message = existing ?? (await this.storeUserMessage(userId, input));
      return this.startReply(userId, conversation, message, sink, false);
    });
  }

  /** Adds a sink to the reply streaming for this user message, if one is. */
  private join(userMessageId: string, sink: TurnSink): TurnAck | undefined {
    const running = this.inFlight.get(userMessageId);
    if (!running) return undefined;
    running.sinks.push(sink);
    return { userMessageId, replyId: running.replyId };
  }

  /** A resend of a message already answered or being answered: never a second turn. */
  private async answerResend(message: MessageEntity, sink: TurnSink): Promise<TurnAck | undefined> {
    const joined = this.join(message.id, sink);
    if (joined) return joined;
    const reply = await this.db.getRepository(MessageEntity).findOne({
      where: { parentId: message.id, role: 'assistant' },
      order: { createdAt: 'DESC' },
    });
    if (!reply) return undefined;
    // After the ack has gone out (a client matches done to the acked replyId).
    setImmediate(() => sink.done(storedReply(reply)));
    return { userMessageId: message.id, replyId: reply.id };
  }

  /**
   * Takes one of the user's concurrent-stream slots for as long as it takes to start the reply (after that the
   * in-flight entry holds it). Check and take happen with no await in between, so parallel sends cannot overrun it.
   */
  private async withStreamSlot(userId: string, start: () => Promise<TurnAck>): Promise<TurnAck> {
    this.limits.checkStreams(this.streamsOf(userId) + (this.starting.get(userId) ?? 0));
    this.starting.set(userId, (this.starting.get(userId) ?? 0) + 1);
    try {
      return await start();
    } finally {
      const left = (this.starting.get(userId) ?? 1) - 1;
      if (left > 0) this.starting.set(userId, left);
      else this.starting.delete(userId);
    }
  }

  /** A new alternative reply (swipe) to the same user message; earlier alternatives are kept. */
  async regenerate(userId: string, replyId: string, sink: TurnSink): Promise<TurnAck> {
    const reply = await this.ownedReply(userId, replyId);
    if (!reply.parentId) {
      throw new UnprocessableEntityException({
        error: { code: 'not_regenerable', message: 'Only replies to a user message can be regenerated' },
      });
    }
    const parent = await this.db.getRepository(MessageEntity).findOneByOrFail({ id: reply.parentId });
    const joined = this.join(parent.id, sink);
    if (joined) return joined;
    return this.withStreamSlot(userId, async () => {
      await this.limits.admit(userId);
      const conversation = await this.conversations.owned(userId, parent.conversationId);
      return this.startReply(userId, conversation, parent, sink, true);
    });
  }

  /** Records which alternative the user kept: it becomes the one later turns see. */
  async select(userId: string, replyId: string): Promise<void> {
    const reply = await this.ownedReply(userId, replyId);
    const parentId = reply.parentId;
    if (!parentId) return;
    await this.db.transaction(async (tx) => {
      const messages = tx.getRepository(MessageEntity);
      const siblings = await messages.findBy({ parentId, role: 'assistant' });
      await messages.update({ parentId, role: 'assistant' }, { selected: false });
      await messages.update({ id: reply.id }, { selected: true });
      const event = createEvent(
        chatFeedbackV2,
        {
          kind: 'swipe',
          conversationId: reply.conversationId,
          userId,
          parentId,
          selectedTurnId: reply.id,
          rejectedTurnIds: siblings.filter((s) => s.id !== reply.id).map((s) => s.id),
        },
        SERVICE,
      );
      await enqueueEvent(tx, chatFeedbackV2, event, reply.conversationId);
    });
    this.relay.wake();
  }

  /** An assistant reply in one of the user's conversations; 404 for anything else. */
  async ownedReply(userId: string, replyId: string): Promise<MessageEntity> {
    const reply = await this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .innerJoin(ConversationEntity, 'c', 'c.id = m.conversation_id')
      .where('m.id = :replyId AND m.role = :role AND c.user_id = :userId', {
        replyId,
        role: 'assistant',
        userId,
      })
      .getOne();
    if (!reply) throw new NotFoundException({ error: { code: 'not_found', message: 'Reply not found' } });
    return reply;
  }

  private streamsOf(userId: string): number {
    return [...this.inFlight.values()].filter((running) => running.userId === userId).length;
  }

  private startReply(
    userId: string,
    conversation: ConversationEntity,
    message: MessageEntity,
    sink: TurnSink,
    regenerated: boolean,
  ): TurnAck {
    // Two requests for the same message that raced past their checks share one reply.
    const joined = this.join(message.id, sink);
    if (joined) return joined;
    const running: InFlight = {
      userId,
      conversationId: conversation.id,
      replyId: randomUUID(),
      abort: new AbortController(),
      sinks: [sink],
      streamed: '',
      lastIndex: -1,
    };
    this.inFlight.set(message.id, running);
    const turn = { userId, conversation, userMessage: message, replyId: running.replyId, regenerated };
    void this.reply(turn, running.abort.signal, fanOut(running)).finally(() => {
      this.inFlight.delete(message.id);
    });
    return { userMessageId: message.id, replyId: running.replyId };
  }

  /**
   * A client back after a dropped connection (or a reload) picks up the replies still streaming in one of the
   * user's conversations: what streamed so far now, the rest as it comes. A sink with the same `key` (the same
   * socket resuming twice) replaces the earlier one rather than doubling the deltas.
   */
  async resume(userId: string, conversationId: string, sink: TurnSink): Promise<ReplyInProgress[]> {
    await this.conversations.owned(userId, conversationId);
    const replies: ReplyInProgress[] = [];
    for (const [userMessageId, running] of this.inFlight) {
      if (running.userId !== userId || running.conversationId !== conversationId) continue;
      running.sinks = [...running.sinks.filter((s) => !sink.key || s.key !== sink.key), sink];
      replies.push({
        replyId: running.replyId,
        userMessageId,
        index: running.lastIndex,
        content: running.streamed,
      });
    }
    return replies;
  }

  /** Cancels a running reply (and its upstream request); false when there is none for this user. */
  stop(userId: string, replyId: string): boolean {
    for (const running of this.inFlight.values()) {
      if (running.replyId === replyId && running.userId === userId) {
        running.abort.abort();
        return true;
      }
    }
    return false;
  }

  /** Idempotent by clientMessageId; limits apply only to a message not seen before. */
  /** Stores a new user message after the rate limit and quota; a concurrent duplicate resolves to the stored row. */
  private async storeUserMessage(
    userId: string,
    { conversationId, content, clientMessageId }: SendMessageInput,
  ) {
    await this.limits.admit(userId);
    const repo = this.db.getRepository(MessageEntity);
    try {
      // A plain INSERT ... RETURNING: one round trip on the path to the first token (save() would add a
      // transaction around it and a second read).
      const { generatedMaps } = await repo.insert({ conversationId, role: 'user', content, clientMessageId });
      return repo.create({ conversationId, role: 'user', content, clientMessageId, ...generatedMaps[0] });
    } catch (error) {
      if (pgErrorCode(error) !== PG_ERROR.uniqueViolation) throw error;
      return repo.findOneByOrFail({ conversationId, clientMessageId });
    }
  }

  private async reply(turn: TurnInProgress, signal: AbortSignal, sink: TurnSink): Promise<void> {
    const { userMessage, replyId } = turn;
    const conversationId = userMessage.conversationId;
    const started = performance.now();
    let ttft = 0;
    const filter = new ThinkFilter();
    const batcher = new DeltaBatcher(
      { flushMs: this.env.DELTA_FLUSH_MS, flushChars: this.env.DELTA_FLUSH_CHARS },
      (index, delta) => sink.delta({ conversationId, replyId, index, delta }),
    );
    let checkpointId = '';
    let content = '';
    try {
      const route = await this.router.route(turn.userId);
      const { checkpoint } = route;
      checkpointId = checkpoint.id;
      const maxTokens = checkpoint.decoding.maxTokens ?? this.env.LLM_MAX_TOKENS;
      const safety = assessCrisis(userMessage.content);
      for (const category of safety.categories) this.flagged.inc({ category });
      const context = await this.loadContext(
        turn,
        checkpoint.id,
        checkpoint.contextTokens - maxTokens,
        safety,
      );
      let finishReason: 'stop' | 'length' | 'cancelled' = 'stop';
      let usage = { promptTokens: 0, completionTokens: 0 };
      const stop = buildStopStrings({
        userName: context.userName,
        characterName: context.characterName,
        checkpointStop: checkpoint.decoding.stop,
      });
      // In case the server does not honour `stop`: the user never sees the model speak for them.
      const trimmer = new StopTrimmer(stop);
      const reveal = (text: string) => {
        content += text;
        batcher.push(text);
      };
      try {
        const request = {
          model: checkpoint.modelName,
          messages: context.prompt,
          maxTokens,
          ...(checkpoint.decoding.temperature !== undefined && {
            temperature: checkpoint.decoding.temperature,
          }),
          ...(checkpoint.decoding.topP !== undefined && { topP: checkpoint.decoding.topP }),
          stop,
        };
        for await (const event of this.checkpoints.clientFor(checkpoint).stream(request, signal)) {
          if (event.type === 'delta') {
            if (!ttft) {
              ttft = performance.now() - started;
              this.ttft.observe(ttft / 1_000);
            }
            reveal(trimmer.push(filter.push(event.text)));
            // Stops reading, which cancels the upstream request: the rest is not for the user.
            if (trimmer.stopped) break;
          } else {
            finishReason = event.finishReason;
            usage = event.usage ?? usage;
          }
        }
      } catch (error) {
        if (!(error instanceof ModelError && error.code === 'cancelled')) throw error;
        finishReason = 'cancelled';
      }
      reveal(trimmer.push(filter.end()));
      reveal(trimmer.end());
      batcher.flush();
      const total = performance.now() - started;
      const done = {
        conversationId,
        replyId,
        content,
        finishReason,
        usage,
        latencyMs: { ttft: Math.round(ttft), total: Math.round(total) },
        checkpointId,
      };
      this.calibration.observe(checkpoint.id, context.uncalibratedEstimate, usage.promptTokens);
      const saved = await this.persist(turn, context, done, filter.reasoning, route);
      sink.done(done);
      this.afterReply(turn, context, saved, checkpoint);
      this.memory.remember(
        {
          conversationId,
          dropped: context.dropped,
          previousSummary: turn.conversation.summary,
          summaryThrough: turn.conversation.summaryThrough,
        },
        checkpoint,
      );
    } catch (error) {
      batcher.flush();
      const failure =
        error instanceof ModelError
          ? { code: error.code, message: error.message, retryable: error.retryable }
          : { code: 'internal', message: 'The reply could not be completed', retryable: true };
      if (!(error instanceof ModelError)) {
        // Ids only: the error of a failed insert carries the turn's text as query parameters (the serializer
        // drops them too).
        this.logger.error(
          { err: error, conversationId, userMessageId: userMessage.id, replyId, checkpointId },
          'turn failed',
        );
      }
      sink.error({ conversationId, replyId, ...failure });
    }
  }

  /** Off the hot path: the deep persona extraction and the director, when they are due. */
  private afterReply(
    { userId, conversation, userMessage }: TurnInProgress,
    context: TurnContext,
    saved: PersistedTurn,
    checkpoint: CheckpointEntity,
  ): void {
    if (
      saved.userTurnsSinceDeep !== null &&
      deepExtractionDue(saved.userTurnsSinceDeep, context.persona.shifted)
    ) {
      this.deepPersona.schedule(userId, conversation.id, saved.replyCreatedAt);
    }
    this.director.consider(
      conversation,
      context.userTurn,
      {
        characterName: context.characterName,
        transcript: [
          ...context.history,
          { role: 'user', content: userMessage.content },
          { role: 'assistant', content: saved.replyContent },
        ],
        personaGuidance: context.persona.guidance,
      },
      checkpoint,
    );
  }

  private async loadContext(
    { userId, conversation, userMessage }: TurnInProgress,
    checkpointId: string,
    budgetTokens: number,
    safety: CrisisAssessment,
  ) {
    const tokenFactor = this.calibration.factor(checkpointId);
    const [character, userName, earlier, profileRow, userTurn] = await Promise.all([
      this.characters.get(conversation.characterId, (id) =>
        this.db.getRepository(CharacterEntity).findOneByOrFail({ id }),
      ),
      this.displayNames.get(
        userId,
        async (id) => (await this.db.getRepository(UserEntity).findOneByOrFail({ id })).displayName,
      ),
      this.db
        .getRepository(MessageEntity)
        .createQueryBuilder('m')
        .where('m.conversation_id = :id', { id: conversation.id })
        .andWhere("m.status = 'complete'")
        .andWhere('m.selected')
        .andWhere('(m.created_at, m.id) < (:createdAt, :messageId)', {
          createdAt: userMessage.createdAt,
          messageId: userMessage.id,
        })
        .orderBy('m.created_at', 'DESC')
        .addOrderBy('m.id', 'DESC')
        .take(HISTORY_LIMIT)
        .getMany(),
      this.persona.load(userId),
      this.userTurnNumber(userMessage),
    ]);
    const ordered = earlier.reverse();
    const persona = this.persona.observe(
      profileRow,
      userMessage,
      ordered.findLast((m) => m.role === 'assistant')?.content,
    );
    const history: ChatMessage[] = ordered.map((m) => ({ role: m.role, content: m.content }));
    const card = characterCardSchema.parse(character.card);
    const prompt = buildPrompt({
      card,
      userName,
      history,
      memory: conversation.summary,
      personaGuidance: persona.guidance,
      direction: this.director.guidanceFor(conversation, userTurn),
      tokenFactor,
      userMessage: userMessage.content,
      budgetTokens,
      ...(safety.flagged && { safetyInstructions: this.env.SAFETY_INSTRUCTIONS }),
    });
    const dropped = ordered
      .slice(0, prompt.droppedTurns)
      .map((m) => ({ role: m.role, content: m.content, createdAt: m.createdAt }));
    return {
      safety,
      persona,
      userTurn,
      characterName: card.data.name,
      userName,
      prompt: prompt.messages,
      history: history.slice(prompt.droppedTurns),
      dropped,
      uncalibratedEstimate: prompt.estimatedTokens / tokenFactor,
    };
  }

  /** Which user turn of the conversation this message is (1-based), counting every user message up to it. */
  private async userTurnNumber(message: MessageEntity): Promise<number> {
    // Compared in SQL: created_at has microseconds, a JavaScript Date only milliseconds.
    const [row] = (await this.db.query(
      `SELECT count(*)::int AS n FROM messages m, messages current
       WHERE current.id = $1 AND m.conversation_id = current.conversation_id AND m.role = 'user'
         AND (m.created_at, m.id) <= (current.created_at, current.id)`,
      [message.id],
    )) as { n: number }[];
    return row?.n ?? 1;
  }

  private async persist(
    { userId, userMessage, conversation, regenerated }: TurnInProgress,
    context: TurnContext,
    done: TurnDone,
    reasoning: string | null,
    route: Route,
  ): Promise<PersistedTurn> {
    const saved = await this.db.transaction(async (tx) => {
      // The newest alternative is the one shown (and seen by later turns) until the user picks another.
      await tx
        .getRepository(MessageEntity)
        .update({ parentId: userMessage.id, role: 'assistant' }, { selected: false });
      const reply = await tx.getRepository(MessageEntity).save(
        tx.getRepository(MessageEntity).create({
          id: done.replyId,
          conversationId: done.conversationId,
          role: 'assistant',
          content: done.content,
          reasoning,
          parentId: userMessage.id,
          status: done.finishReason === 'cancelled' ? 'cancelled' : 'complete',
          finishReason: done.finishReason,
          promptTokens: done.usage.promptTokens,
          completionTokens: done.usage.completionTokens,
          ttftMs: done.latencyMs.ttft,
          totalMs: done.latencyMs.total,
          checkpointId: done.checkpointId,
          safetyCategories: context.safety.categories,
        }),
      );
      await tx
        .getRepository(ConversationEntity)
        .update({ id: done.conversationId }, { updatedAt: new Date() });
      const event = createEvent(
        chatTurnCompletedV1,
        {
          turnId: reply.id,
          conversationId: done.conversationId,
          userId,
          characterId: conversation.characterId,
          checkpointId: done.checkpointId,
          experimentId: route.experimentId,
          armId: route.armId,
          userMessage: {
            id: userMessage.id,
            content: userMessage.content,
            createdAt: userMessage.createdAt.toISOString(),
          },
          assistantMessage: {
            id: reply.id,
            content: reply.content,
            createdAt: reply.createdAt.toISOString(),
            reasoning,
            finishReason: done.finishReason,
            usage: done.usage,
          },
          history: context.history,
          personaSnapshot: context.persona.snapshot,
          timings: { ttftMs: done.latencyMs.ttft, totalMs: done.latencyMs.total },
          safety: context.safety,
        },
        SERVICE,
      );
      await enqueueEvent(tx, chatTurnCompletedV1, event, done.conversationId);
      const userTurnsSinceDeep =
        context.persona.enabled && !regenerated
          ? await this.persona.merge(tx, userId, context.persona.observations, 'user-turn')
          : null;
      return { userTurnsSinceDeep, replyCreatedAt: reply.createdAt, replyContent: reply.content };
    });
    this.relay.wake();
    return saved;
  }
}

type TurnContext = Awaited<ReturnType<TurnService['loadContext']>>;

interface PersistedTurn {
  /** Null when nothing was merged (inference off, or a regenerated reply). */
  userTurnsSinceDeep: number | null;
  replyCreatedAt: Date;
  replyContent: string;
}

/** Every sink of a running reply, read at each event (resumed clients join while it streams). */
function fanOut(running: InFlight): TurnSink {
  return {
    delta: (event) => {
      running.streamed += event.delta;
      running.lastIndex = event.index;
      running.sinks.forEach((s) => s.delta(event));
    },
    done: (event) => running.sinks.forEach((s) => s.done(event)),
    error: (event) => running.sinks.forEach((s) => s.error(event)),
  };
}

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
