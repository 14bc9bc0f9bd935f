import type { ConversationEntity, MessageEntity, UserProfileEntity } from '@echoloop/persistence';

/** A complete, kept message before the turn's user message, as the prompt and the events read it. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  createdAt: Date;
}

/** Everything a turn reads from the database, in one statement (for a new message, the one that stores it). */
export interface TurnInputs {
  conversation: ConversationEntity;
  userMessage: MessageEntity;
  /** False when the message was stored before (a resend): this statement wrote nothing. */
  created: boolean;
  /** Complete, kept messages before the user message, oldest first, at most `historyLimit`. */
  history: HistoryMessage[];
  /** Which user turn of the conversation the user message is (1-based). */
  userTurn: number;
  /** The character's card as stored (validated by the caller). */
  card: unknown;
  userName: string;
  profile: UserProfileEntity | null;
}
