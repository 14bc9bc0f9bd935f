import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { ConversationEntity } from './conversation.entity';

export type MessageRole = 'system' | 'user' | 'assistant';
export type MessageStatus = 'streaming' | 'complete' | 'cancelled' | 'error';

@Entity({ name: 'messages' })
@Index('messages_conversation_order_idx', ['conversationId', 'createdAt', 'id'])
@Index('messages_client_message_id_key', ['conversationId', 'clientMessageId'], {
  unique: true,
  where: 'client_message_id IS NOT NULL',
})
/** A user message's replies (its alternatives): found on every reply's commit and swipe. */
@Index('messages_parent_idx', ['parentId'], { where: 'parent_id IS NOT NULL' })
export class MessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'conversation_id', type: 'uuid' })
  conversationId!: string;

  @ManyToOne(() => ConversationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'conversation_id' })
  conversation?: ConversationEntity;

  @Column({ type: 'text' })
  role!: MessageRole;

  /** What the user sees, and what later turns read: for a reply the user edited, their text. */
  @Column({ type: 'text' })
  content!: string;

  /** The model's own text of a reply the user edited (kept from the first edit); null when never edited. */
  @Column({ name: 'original_content', type: 'text', nullable: true })
  originalContent!: string | null;

  @Column({ name: 'edited_at', type: 'timestamptz', nullable: true })
  editedAt!: Date | null;

  /** Hidden `<think>` text of an assistant reply: stored for training, never shown. */
  @Column({ type: 'text', nullable: true })
  reasoning!: string | null;

  /** Makes sending idempotent: the same id twice in one conversation is one message. */
  @Column({ name: 'client_message_id', type: 'text', nullable: true })
  clientMessageId!: string | null;

  /** For replies: the user message answered. Several replies to one parent are swipes (alternatives). */
  @Column({ name: 'parent_id', type: 'uuid', nullable: true })
  parentId!: string | null;

  @ManyToOne(() => MessageEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'parent_id' })
  parent?: MessageEntity | null;

  @Column({ type: 'text', default: 'complete' })
  status!: MessageStatus;

  /** Among the swipes (replies sharing a parent), the one the user kept; the latest reply until they choose. */
  @Column({ type: 'boolean', default: true })
  selected!: boolean;

  /** Set when the turn was flagged by the crisis detector: the categories found (empty when not flagged). */
  @Column({ name: 'safety_categories', type: 'text', array: true, default: () => "'{}'" })
  safetyCategories!: string[];

  @Column({ name: 'finish_reason', type: 'text', nullable: true })
  finishReason!: string | null;

  /**
   * A user message's place among its conversation's user messages (1-based); null for replies. Stored by the turn
   * that sends it, so that the next turn reads it instead of counting the conversation.
   */
  @Column({ name: 'user_turn', type: 'integer', nullable: true })
  userTurn!: number | null;

  @Column({ name: 'prompt_tokens', type: 'integer', nullable: true })
  promptTokens!: number | null;

  @Column({ name: 'completion_tokens', type: 'integer', nullable: true })
  completionTokens!: number | null;

  @Column({ name: 'ttft_ms', type: 'integer', nullable: true })
  ttftMs!: number | null;

  @Column({ name: 'total_ms', type: 'integer', nullable: true })
  totalMs!: number | null;

  @Column({ name: 'checkpoint_id', type: 'text', nullable: true })
  checkpointId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
