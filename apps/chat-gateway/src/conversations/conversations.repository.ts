import {
  CharacterEntity,
  ConversationEntity,
  type DirectorNote,
  FeedbackEntity,
  MessageEntity,
  UserEntity,
  UserProfileEntity,
} from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, In } from 'typeorm';

/** What creating a conversation may read and write inside its transaction. */
export interface ConversationsTransaction {
  character(id: string): Promise<CharacterEntity | null>;
  user(id: string): Promise<UserEntity | null>;
  /** The new conversation as the turn's statement reads it back: no summary or director note yet. */
  insertConversation(row: {
    userId: string;
    characterId: string;
    title: string;
  }): Promise<ConversationEntity>;
  /** The conversation's opening message: a complete assistant message. */
  insertGreeting(conversationId: string, content: string): Promise<MessageEntity>;
  profile(userId: string): Promise<UserProfileEntity | null>;
}

/** Conversations and their messages as the conversation area, memory, director and deep persona read and write them. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The conversation if it belongs to the user; null otherwise (whether it exists or not). */
  findOwned(userId: string, conversationId: string): Promise<ConversationEntity | null> {
    return this.db.getRepository(ConversationEntity).findOneBy({ id: conversationId, userId });
  }

  /** Everything a new conversation does (see ConversationsTransaction) in one transaction. */
  transaction<T>(work: (tx: ConversationsTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(conversationsTransaction(manager)));
  }

  /** The user's conversations, last active first, at most 200. */
  listByUser(userId: string): Promise<ConversationEntity[]> {
    return this.db
      .getRepository(ConversationEntity)
      .find({ where: { userId }, order: { updatedAt: 'DESC' }, take: 200 });
  }

  /**
   * Up to `take` messages of the conversation, newest first, older than message `before` when given (one that is
   * not in this conversation yields none).
   */
  messagesBefore(conversationId: string, before: string | undefined, take: number): Promise<MessageEntity[]> {
    const query = this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId', { conversationId })
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .take(take);
    if (before) {
      query.andWhere(
        '(m.created_at, m.id) < (SELECT created_at, id FROM messages WHERE id = :before AND conversation_id = :conversationId)',
        { before },
      );
    }
    return query.getMany();
  }

  /** The user's own feedback rows on these messages (at most one per message). */
  feedbackOn(userId: string, messageIds: string[]): Promise<FeedbackEntity[]> {
    return this.db.getRepository(FeedbackEntity).findBy({ userId, messageId: In(messageIds) });
  }

  /**
   * Up to `take` complete, kept messages of the conversation created at or before `through`, newest first (the
   * deep persona extraction's window).
   */
  recentCompleteMessages(conversationId: string, through: Date, take: number): Promise<MessageEntity[]> {
    return this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId', { conversationId })
      .andWhere('m.created_at <= :through', { through })
      .andWhere("m.status = 'complete'")
      .andWhere('m.selected')
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .take(take)
      .getMany();
  }

  /** Deletes the conversation if it belongs to the user; false when nothing was deleted. */
  async deleteOwned(userId: string, conversationId: string): Promise<boolean> {
    const result = await this.db.getRepository(ConversationEntity).delete({ id: conversationId, userId });
    return Boolean(result.affected);
  }

  /**
   * Deletes up to `limit` conversations last active before `cutoff`, oldest first (through the `updated_at`
   * index; messages and the rest go by cascade); returns how many it deleted.
   */
  async deleteInactiveBefore(cutoff: Date, limit: number): Promise<number> {
    const [, count] = await this.db.query<[unknown[], number]>(
      `DELETE FROM conversations WHERE id IN (
         SELECT id FROM conversations WHERE updated_at < $1 ORDER BY updated_at LIMIT $2)`,
      [cutoff, limit],
    );
    return count;
  }

  /** The rolling summary and the time of the last message it covers. */
  async storeSummary(conversationId: string, summary: string, through: Date): Promise<void> {
    // Raw update: remembering is not activity, so the conversation's updated_at stays as it was.
    await this.db.query('UPDATE conversations SET summary = $1, summary_through = $2 WHERE id = $3', [
      summary,
      through,
      conversationId,
    ]);
  }

  /** The director's note after user turn `note.turn`, unless a note for a later turn is already stored. */
  async storeDirectorNote(conversationId: string, note: DirectorNote): Promise<void> {
    // Raw update, so updated_at (the conversation's last activity) stays; an older step never replaces a newer.
    await this.db.query(
      `UPDATE conversations SET director = $1
       WHERE id = $2 AND (director IS NULL OR (director->>'turn')::int < $3)`,
      [JSON.stringify(note), conversationId, note.turn],
    );
  }
}

function conversationsTransaction(manager: EntityManager): ConversationsTransaction {
  return {
    character: (id) => manager.getRepository(CharacterEntity).findOneBy({ id }),
    user: (id) => manager.getRepository(UserEntity).findOneBy({ id }),
    insertConversation: async (row) => {
      const saved = await manager.getRepository(ConversationEntity).save(row);
      return Object.assign(new ConversationEntity(), saved, {
        summary: null,
        summaryThrough: null,
        director: null,
      });
    },
    insertGreeting: (conversationId, content) => {
      const messages = manager.getRepository(MessageEntity);
      return messages.save(
        messages.create({ conversationId, role: 'assistant', content, status: 'complete' }),
      );
    },
    profile: (userId) => manager.getRepository(UserProfileEntity).findOneBy({ userId }),
  };
}
