import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { MessageEntity } from './message.entity';
import { UserEntity } from './user.entity';

/** What the labeller heard about a turn after it was completed: the next user message, feedback, swipes. */
export interface TurnSignals {
  nextUserMessage?: { id: string; content: string; createdAt: string };
  /** The user's current thumb on the reply: 1 up, -1 down, null taken back. */
  thumbs?: -1 | 1 | null;
  /** The user's current 1-5 star rating of the reply; null taken back. */
  stars?: number | null;
  /** Another alternative was generated for the same user message. */
  regenerated?: boolean;
  /**
   * The user kept this alternative (true) or another one (false) among swipes: by picking it, or by carrying on
   * from it.
   */
  kept?: boolean;
  /** The user's text in place of the reply (the conversation continued from it); null when the edit was taken back. */
  edit?: { content: string; editedAt: string } | null;
  /** The tags the user gave the reply (their whole current set). */
  tags?: string[];
  /** The user's comment on the reply; null taken back. */
  comment?: string | null;
  /** The user came back within the return window after this turn ended a conversation (credited once, late). */
  returned?: boolean;
}

/** A completed turn as the reward labeller received it, with what arrives later; the unit every label hangs on. */
@Entity({ name: 'reward_turns' })
@Index('reward_turns_conversation_replied', ['conversationId', 'repliedAt'])
// Every turn looks up the other alternatives of its user message.
@Index('reward_turns_user_message', ['userMessageId'])
// The leave sweep reads only turns still waiting for a next message: one per conversation, not one per turn.
@Index('reward_turns_waiting', ['repliedAt'], { where: `NOT (signals ? 'nextUserMessage')` })
// A returning user's previous turn, and the experiment pre-period's turns, are found by user.
@Index('reward_turns_user_replied', ['userId', 'repliedAt'])
export class RewardTurnEntity {
  /** The reply's message id (the event's turnId). */
  @PrimaryColumn({ name: 'turn_id', type: 'uuid' })
  turnId!: string;

  @ManyToOne(() => MessageEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'turn_id' })
  reply?: MessageEntity;

  @Column({ name: 'conversation_id', type: 'uuid' })
  conversationId!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'user_message_id', type: 'uuid' })
  userMessageId!: string;

  @Column({ name: 'checkpoint_id', type: 'text' })
  checkpointId!: string;

  @Column({ name: 'experiment_id', type: 'uuid', nullable: true })
  experimentId!: string | null;

  @Column({ name: 'arm_id', type: 'text', nullable: true })
  armId!: string | null;

  /** The chat.turn.completed.v1 payload: enough to judge the turn again (backfills) without the chat tables. */
  @Column({ type: 'jsonb' })
  turn!: Record<string, unknown>;

  @Column({ name: 'replied_at', type: 'timestamptz' })
  repliedAt!: Date;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  signals!: TurnSignals;

  /** Labeller versions that finished this turn (all components stored, reward.turn.labelled.v1 sent). */
  @Column({ name: 'labelled_versions', type: 'text', array: true, default: () => "'{}'" })
  labelledVersions!: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
