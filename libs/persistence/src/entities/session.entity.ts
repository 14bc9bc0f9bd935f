import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * One sign-in of a user (a device, a browser): every access token names its session, and the session's refresh
 * tokens renew it. Revoking the session (logout, refresh-token reuse) ends the access tokens at once; deleting the
 * account deletes its sessions.
 */
@Entity({ name: 'sessions' })
@Index('sessions_user', ['userId'])
export class SessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Moved forward by each refresh: a session unused for the refresh lifetime ends by itself. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'refreshed_at', type: 'timestamptz', nullable: true })
  refreshedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** `logout`, `logout_all`, `refresh_reuse`. */
  @Column({ name: 'revoked_reason', type: 'text', nullable: true })
  revokedReason!: string | null;
}
