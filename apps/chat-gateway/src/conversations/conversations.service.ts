import type { ConversationEntity, MessageEntity } from '@echoloop/persistence';
import { BadRequestException, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import {
  applyMacros,
  characterCardSchema,
  characterNameForMacros,
  listGreetings,
} from '@echoloop/character-cards';
import { TurnInputsCache } from './turn-inputs-cache';
import type { PageQuery } from './conversation.schemas';
import { ConversationsRepository } from './conversations.repository';

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
  edited: m.editedAt ? { originalContent: m.originalContent ?? '', editedAt: m.editedAt } : null,
});

@Injectable()
export class ConversationsService {
  constructor(
    private readonly repository: ConversationsRepository,
    private readonly guesses: TurnInputsCache,
  ) {}

  /** The conversation if it belongs to the user; 404 otherwise (never 403: existence is not disclosed). */
  async owned(userId: string, conversationId: string): Promise<ConversationEntity> {
    const conversation = await this.repository.findOwned(userId, conversationId);
    if (!conversation) throw conversationNotFound();
    return conversation;
  }

  /**
   * A new conversation opened by the character's greeting ({{char}}/{{user}} filled in). What it read is the first
   * turn's guess (TurnInputsCache), so that turn starts its model request as early as later ones do.
   */
  async create(userId: string, characterId: string, greetingIndex = 0) {
    const { created, seed } = await this.repository.transaction(async (tx) => {
      const character = await tx.character(characterId);
      if (!character)
        throw new NotFoundException({ error: { code: 'not_found', message: 'Character not found' } });
      const user = await tx.user(userId);
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
      const conversation = await tx.insertConversation({ userId, characterId, title: character.name });
      const greetingMessage = await tx.insertGreeting(
        conversation.id,
        applyMacros(greeting, { char: characterNameForMacros(card), user: user.displayName }),
      );
      const profile = await tx.profile(userId);
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
    const rows = await this.repository.listByUser(userId);
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
    // One more than the page: whether it comes back tells if older messages follow.
    const rows = await this.repository.messagesBefore(conversationId, before, limit + 1);
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
    const rows = replies.length ? await this.repository.feedbackOn(userId, replies) : [];
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
    if (!(await this.repository.deleteOwned(userId, conversationId))) throw conversationNotFound();
  }
}
