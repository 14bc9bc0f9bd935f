import type { HistoryMessage, TurnInputs } from './turn-inputs';
import { type ConversationEntity, MessageEntity, UserProfileEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import type { UserProfile } from '@echoloop/persona';

/** The most recently active conversations kept (each up to HISTORY_LIMIT messages: about 10 MB per 1,000). */
const MAX_CONVERSATIONS = 5_000;

/**
 * Per conversation, what the next turn's statement will most likely read: the last turn's inputs with that turn
 * added. A guess only, to start the model request before the database answers; the turn checks it against what
 * the statement returns and starts again on any difference (another process's turn, a new summary, an edited
 * card), so a stale entry costs time, never correctness.
 */
@Injectable()
export class TurnInputsCache {
  private readonly entries = new Map<string, TurnInputs>();

  /** The guess for this user's next message (`id` is the one it is stored with), if there is one. */
  next(
    userId: string,
    conversationId: string,
    message: { id: string; content: string },
  ): TurnInputs | undefined {
    const last = this.entries.get(conversationId);
    if (!last || last.conversation.userId !== userId) return undefined;
    const guessed = Object.assign(new MessageEntity(), {
      id: message.id,
      conversationId,
      role: 'user',
      content: message.content,
      createdAt: new Date(),
    });
    return { ...last, userMessage: guessed, created: true };
  }

  /**
   * After a turn is committed: its inputs plus the message and the kept reply, for the next guess, with the profile
   * the turn merged its observations into (none when inference is off).
   */
  advance(
    inputs: TurnInputs,
    merged: UserProfile | undefined,
    reply: MessageEntity,
    historyLimit: number,
  ): void {
    const added: HistoryMessage[] = [
      { role: 'user', content: inputs.userMessage.content, createdAt: inputs.userMessage.createdAt },
    ];
    if (reply.status === 'complete') {
      added.push({ role: 'assistant', content: reply.content, createdAt: reply.createdAt });
    }
    // The turn merged its observations into the stored profile (creating it on the first turn).
    const profile = merged
      ? Object.assign(new UserProfileEntity(), {
          userId: inputs.conversation.userId,
          inferenceEnabled: true,
          userTurnsSinceDeep: 0,
          updatedAt: new Date(),
          ...inputs.profile,
          profile: merged,
        })
      : inputs.profile;
    this.remember({
      ...inputs,
      history: [...inputs.history, ...added].slice(-historyLimit),
      userTurn: inputs.userTurn + 1,
      profile,
    });
  }

  /**
   * A new conversation's first guess, from what creating it read and wrote: its first turn, too, starts the model
   * request before the statement answers. The greeting is the history, as the statement reads it back, and stands
   * as the entry's last message (`next` puts the user's in its place, as for every entry).
   */
  seed({ conversation, greeting, card, userName, profile }: ConversationSeed): void {
    const history: HistoryMessage[] =
      greeting.status === 'complete' && greeting.selected
        ? [{ role: 'assistant', content: greeting.content, createdAt: greeting.createdAt }]
        : [];
    this.remember({
      conversation,
      userMessage: greeting,
      created: true,
      history,
      userTurn: 1,
      card,
      userName,
      profile,
    });
  }

  /** Forgets the guesses that carry this character's card (edited elsewhere), or every guess when no id is given. */
  forgetCharacter(characterId?: string): void {
    if (characterId === undefined) return this.entries.clear();
    for (const [conversationId, entry] of this.entries) {
      if (entry.conversation.characterId === characterId) this.entries.delete(conversationId);
    }
  }

  /** Forgets a conversation whose history changed in a way a guess cannot follow (a swipe, a failed turn). */
  forget(conversationId: string): void {
    this.entries.delete(conversationId);
  }

  /** The conversation's guess, now the most recent (the oldest one goes when there are too many). */
  private remember(entry: TurnInputs): void {
    this.entries.delete(entry.conversation.id);
    if (this.entries.size >= MAX_CONVERSATIONS) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(entry.conversation.id, entry);
  }
}

/** What creating a conversation knows of its first turn's inputs. */
export interface ConversationSeed {
  conversation: ConversationEntity;
  /** The character's greeting, stored as the conversation's first message. */
  greeting: MessageEntity;
  card: unknown;
  userName: string;
  profile: UserProfileEntity | null;
}
