import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The live emotion score of a conversation (RLVER's sentient scale) per labeller version. */
@Entity({ name: 'reward_conversations' })
export class RewardConversationEntity {
  @PrimaryColumn({ name: 'conversation_id', type: 'uuid' })
  conversationId!: string;

  @PrimaryColumn({ name: 'labeller_version', type: 'text' })
  labellerVersion!: string;

  @Column({ name: 'emotion_score', type: 'integer' })
  emotionScore!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
