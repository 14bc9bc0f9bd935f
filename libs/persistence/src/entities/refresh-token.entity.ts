import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SessionEntity } from './session.entity';

/**
 * A refresh token of a session, by the SHA-256 of its secret. Each is used once: a refresh marks it used and issues
 * the next; a used one presented again means it was stolen, and the whole session is revoked (rotation with reuse
 * detection, OAuth 2.0 Security BCP §4.14).
 */
@Entity({ name: 'refresh_tokens' })
@Index('refresh_tokens_session', ['sessionId'])
export class RefreshTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId!: string;

  @ManyToOne(() => SessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id' })
  session?: SessionEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
