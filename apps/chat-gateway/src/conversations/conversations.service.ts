import {
  CharacterEntity,
  ConversationEntity,
  FeedbackEntity,
  MessageEntity,
  UserEntity,
  UserProfileEntity,
} from '@echoloop/persistence';
import { BadRequestException, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import {
  applyMacros,
  characterCardSchema,
  characterNameForMacros,
  listGreetings,
} from '@echoloop/character-cards';
import { TurnInputsCache } from '../chat/turn-inputs-cache';
import type { PageQuery } from './conversation.schemas';

export const conversationNotFound = () =>
  new NotFoundException({ error: { code: 'not_found', message: 'Conversation not found' } });

export const messageView = (m: MessageEntity) => ({
  id: m.id,
  role: m.role,
  content: m.content,
  status: m.status,
  selected: m.selected,
  parentId: m.parentId,
  finishReason: m.finishReason,
  usage:
    m.promptTokens === null ? null : { promptTokens: m.promptTokens, completionTokens: m.completionTokens },
  checkpointId: m.checkpointId,
  createdAt: m.createdAt,
});

@Injectable()
export class ConversationsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly guesses: TurnInputsCache,
  ) {}

  /** The conversation if it belongs to the user; 404 otherwise (never 403: existence is not disclosed). */
  async owned(userId: string, conversationId: string): Promise<ConversationEntity> {
    const conversation = await this.db
      .getRepository(ConversationEntity)
      .findOneBy({ id: conversationId, userId });
    if (!conversation) throw conversationNotFound();
    return conversation;
  }

  /**
   * A new conversation opened by the character's greeting ({{char}}/{{user}} filled in). What it read is the first
   * turn's guess (TurnInputsCache), so that turn starts its model request as early as later ones do.
   */
  async create(userId: string, characterId: string, greetingIndex = 0) {
    const { created, seed } = await this.db.transaction(async (tx) => {
      const character = await tx.getRepository(CharacterEntity).findOneBy({ id: characterId });
      if (!character)
        throw new NotFoundException({ error: { code: 'not_found', message: 'Character not found' } });
      const user = await tx.getRepository(UserEntity).findOneBy({ id: userId });
      if (!user)
        throw new UnauthorizedException({
          error: { code: 'unauthorized', message: 'Account no longer exists' },
        });
      const card = characterCardSchema.parse(character.card);
      const greetings = listGreetings(card);
      const greeting = greetings[greetingIndex] ?? '';
      if (greetingIndex >= Math.max(1, greetings.length)) {
        throw new BadRequestException({
          error: { code: 'no_such_greeting', message: `This character has ${greetings.length} greeting(s)` },
        });
      }
      const saved = await tx
        .getRepository(ConversationEntity)
        .save({ userId, characterId, title: character.name });
      // As the turn's statement reads it back: no summary or director note yet.
      const conversation = Object.assign(new ConversationEntity(), saved, {
        summary: null,
        summaryThrough: null,
        director: null,
      });
      const greetingMessage = await tx.getRepository(MessageEntity).save(
        tx.getRepository(MessageEntity).create({
          conversationId: conversation.id,
          role: 'assistant',
          content: applyMacros(greeting, { char: characterNameForMacros(card), user: user.displayName }),
          status: 'complete',
        }),
      );
      const profile = await tx.getRepository(UserProfileEntity).findOneBy({ userId });
      return {
        created: {
          id: conversation.id,
          characterId,
          title: conversation.title,
          createdAt: conversation.createdAt,
          greeting: messageView(greetingMessage),
          greetingCount: greetings.length,
        },
        seed: {
          conversation,
          greeting: greetingMessage,
          card: character.card,
          userName: user.displayName,
          profile,
        },
      };
    });
    this.guesses.seed(seed);
    return created;
  }

  async list(userId: string) {
    const rows = await this.db
      .getRepository(ConversationEntity)
      .find({ where: { userId }, order: { updatedAt: 'DESC' }, take: 200 });
    return {
      items: rows.map((c) => ({
        id: c.id,
        characterId: c.characterId,
        title: c.title,
        updatedAt: c.updatedAt,
      })),
    };
  }

  /** A page of messages, oldest first, ending just before `before` (or at the newest). */
  async messages(userId: string, conversationId: string, { before, limit }: PageQuery) {
    await this.owned(userId, conversationId);
    const query = this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId', { conversationId })
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .take(limit + 1);
    if (before) {
      query.andWhere(
        '(m.created_at, m.id) < (SELECT created_at, id FROM messages WHERE id = :before AND conversation_id = :conversationId)',
        { before },
      );
    }
    const rows = await query.getMany();
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit).reverse();
    const feedback = await this.feedbackOn(userId, page);
    return {
      items: page.map((m) => ({ ...messageView(m), feedback: feedback.get(m.id) ?? null })),
      nextBefore: hasMore ? (page[0]?.id ?? null) : null,
    };
  }

  /** The user's own thumbs and stars on these messages, so a reloaded conversation shows them. */
  private async feedbackOn(userId: string, messages: MessageEntity[]) {
    const replies = messages.filter((m) => m.role === 'assistant').map((m) => m.id);
    const rows = replies.length
      ? await this.db.getRepository(FeedbackEntity).findBy({ userId, messageId: In(replies) })
      : [];
    return new Map(
      rows.map((f) => [
        f.messageId,
        {
          thumb: f.thumb === 1 ? ('up' as const) : f.thumb === -1 ? ('down' as const) : null,
          stars: f.stars,
        },
      ]),
    );
  }

  async remove(userId: string, conversationId: string): Promise<void> {
    const result = await this.db.getRepository(ConversationEntity).delete({ id: conversationId, userId });
    if (!result.affected) throw conversationNotFound();
  }
}
