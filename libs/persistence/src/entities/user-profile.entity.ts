import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/** What the companion inferred about a user (libs/persona's UserProfile), kept across conversations. */
@Entity({ name: 'user_profiles' })
export class UserProfileEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @OneToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'jsonb' })
  profile!: Record<string, unknown>;

  /** The user's switch: when off, nothing is inferred or stored, and replies get no persona guidance. */
  @Column({ name: 'inference_enabled', type: 'boolean', default: true })
  inferenceEnabled!: boolean;

  /** User messages observed since the last deep (LLM) extraction: it runs again every few. */
  @Column({ name: 'user_turns_since_deep', type: 'integer', default: 0 })
  userTurnsSinceDeep!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
