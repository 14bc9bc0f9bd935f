import {
  CharacterEntity,
  type ClientSpeakers,
  ConversationEntity,
  MessageEntity,
} from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Line } from './client-history';
import type { StoredLine } from './thread-match';

/** How a client's conversation is held: by the client (its key's name), with its prompt and its persona choice. */
export interface ClientSettings {
  clientName: string;
  systemPrompt: string | null;
  personaGuidance: boolean;
  speakers: ClientSpeakers | null;
}

export interface NewThread extends ClientSettings {
  userId: string;
  characterId: string;
  title: string;
  threadKey: string;
  /** The dialogue the client brought from elsewhere, stored as the conversation's past (no turns, no labels). */
  past: (Line & { clientMessageId: string | null })[];
}

/** How many of a user's conversations sharing a thread key are compared with a resent history (newest first). */
const CANDIDATES = 20;
/** A client's transcript is read whole up to this many messages; a longer one is matched by its explicit id. */
const TRANSCRIPT_LIMIT = 4_000;

/** The SQL of OpenAI-compatible clients' conversations: characters by model name, transcripts, new threads. */
@Injectable()
export class ClientThreadsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Characters a client may name as its `model`, oldest first (the first is `default`). */
  characters(): Promise<Pick<CharacterEntity, 'id' | 'name' | 'createdAt'>[]> {
    return this.db
      .getRepository(CharacterEntity)
      .find({ select: { id: true, name: true, createdAt: true }, order: { createdAt: 'ASC' }, take: 500 });
  }

  /** The character a client's `model` names: its id, its name in any case, or `default` (the oldest). */
  async characterNamed(model: string): Promise<{ id: string; name: string } | null> {
    const [row] = await this.db.query<{ id: string; name: string }[]>(
      `SELECT id, name FROM characters
        WHERE $1 = 'default' OR id::text = $1 OR lower(name) = $1
        ORDER BY (id::text = $1) DESC, ($1 = 'default') DESC, created_at LIMIT 1`,
      [model.trim().toLowerCase()],
    );
    return row ?? null;
  }

  /** The user's conversations this key may continue, newest first. */
  async candidates(userId: string, threadKey: string): Promise<string[]> {
    const rows = await this.db.getRepository(ConversationEntity).find({
      select: { id: true },
      where: { userId, clientThreadKey: threadKey },
      order: { updatedAt: 'DESC' },
      take: CANDIDATES,
    });
    return rows.map((row) => row.id);
  }

  owned(userId: string, conversationId: string): Promise<ConversationEntity | null> {
    return this.db.getRepository(ConversationEntity).findOneBy({ id: conversationId, userId });
  }

  /** The conversation as its client was shown it: each user message and its kept reply, with that reply's swipes. */
  async transcript(conversationId: string): Promise<StoredLine[]> {
    const rows = await this.db.getRepository(MessageEntity).find({
      select: {
        id: true,
        role: true,
        content: true,
        clientMessageId: true,
        parentId: true,
        status: true,
        selected: true,
      },
      where: { conversationId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: TRANSCRIPT_LIMIT,
    });
    const swipes = new Map<string, { id: string; content: string }[]>();
    for (const row of rows) {
      if (row.role !== 'assistant' || !row.parentId || row.status !== 'complete') continue;
      swipes.set(row.parentId, [...(swipes.get(row.parentId) ?? []), { id: row.id, content: row.content }]);
    }
    const kept = new Map(
      rows.filter((r) => r.parentId && r.selected && r.status === 'complete').map((r) => [r.parentId, r]),
    );
    const lines: StoredLine[] = [];
    for (const row of rows) {
      if (row.role === 'user') {
        lines.push({
          id: row.id,
          role: 'user',
          content: row.content,
          clientMessageId: row.clientMessageId,
          alternatives: [],
        });
        const reply = kept.get(row.id);
        if (reply) {
          lines.push({
            id: reply.id,
            role: 'assistant',
            content: reply.content,
            clientMessageId: null,
            alternatives: swipes.get(row.id) ?? [],
          });
        }
      } else if (row.role === 'assistant' && !row.parentId && row.status === 'complete') {
        lines.push({
          id: row.id,
          role: 'assistant',
          content: row.content,
          clientMessageId: null,
          alternatives: [],
        });
      }
    }
    return lines;
  }

  /** A new conversation of the client's, with the past it brought, in one transaction. */
  newThread(thread: NewThread): Promise<string> {
    return this.db.transaction(async (tx) => {
      const conversation = await tx.getRepository(ConversationEntity).save({
        userId: thread.userId,
        characterId: thread.characterId,
        title: thread.title,
        clientName: thread.clientName,
        clientSystemPrompt: thread.systemPrompt,
        clientPersonaGuidance: thread.personaGuidance,
        clientSpeakers: thread.speakers,
        clientThreadKey: thread.threadKey,
      });
      let parentId: string | null = null;
      let userTurn = 0;
      // One statement per line keeps created_at in order (now() is the transaction's; clock_timestamp() moves).
      for (const line of thread.past) {
        const [row]: [{ id: string }] = await tx.query(
          `INSERT INTO messages (conversation_id, role, content, client_message_id, parent_id, user_turn, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp()) RETURNING id`,
          [
            conversation.id,
            line.role,
            line.content,
            line.role === 'user' ? line.clientMessageId : null,
            line.role === 'assistant' ? parentId : null,
            line.role === 'user' ? ++userTurn : null,
          ],
        );
        if (line.role === 'user') parentId = row.id;
      }
      return conversation.id;
    });
  }

  /** Stores the client's current name, prompt and persona choice; false when they had not changed. */
  async updateClient(conversationId: string, settings: ClientSettings): Promise<boolean> {
    const result = await this.db
      .getRepository(ConversationEntity)
      .createQueryBuilder()
      .update()
      .set({
        clientName: settings.clientName,
        clientSystemPrompt: settings.systemPrompt,
        clientPersonaGuidance: settings.personaGuidance,
        clientSpeakers: settings.speakers,
      })
      .where('id = :conversationId', { conversationId })
      .andWhere(
        `(client_name, client_system_prompt, client_persona_guidance, client_speakers)
           IS DISTINCT FROM (:name::text, :prompt::text, :guidance::boolean, :speakers::jsonb)`,
        {
          name: settings.clientName,
          prompt: settings.systemPrompt,
          guidance: settings.personaGuidance,
          speakers: settings.speakers && JSON.stringify(settings.speakers),
        },
      )
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
