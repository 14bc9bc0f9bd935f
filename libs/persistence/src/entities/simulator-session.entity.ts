import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';

/**
 * A simulated user's conversation driven one reply at a time over HTTP (RL rollouts). The whole session state lives
 * in `session`, so any runner instance can take the next turn; `version` stops two replies racing on one session.
 */
@Entity({ name: 'simulator_sessions' })
@Index('simulator_sessions_updated', ['updatedAt'])
export class SimulatorSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'profile_id', type: 'text' })
  profileId!: string;

  /** The library's SimulatorSession, whole. */
  @Column({ type: 'jsonb' })
  session!: Record<string, unknown>;

  /** Null while the user is still talking. */
  @Column({ name: 'end_reason', type: 'text', nullable: true })
  endReason!: string | null;

  @VersionColumn()
  version!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
