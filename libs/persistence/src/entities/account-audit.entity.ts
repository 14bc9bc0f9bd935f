import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who acted on an account: a signed-in admin, the `admin` CLI, or the bootstrap admin at start-up. */
export const ACCOUNT_AUDIT_ACTORS = ['user', 'cli', 'bootstrap'] as const;
export type AccountAuditActor = (typeof ACCOUNT_AUDIT_ACTORS)[number];

/**
 * One change to an account's power (roles, disabled), written in the same transaction as the change. No foreign
 * key: the trail outlives the account.
 */
@Entity({ name: 'account_audit' })
@Index('account_audit_target', ['targetId', 'at'])
export class AccountAuditEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  @Column({ name: 'target_id', type: 'uuid' })
  targetId!: string;

  @Column({ type: 'text' })
  actor!: AccountAuditActor;

  /** The admin who acted when `actor` is `user`; null for the CLI and the bootstrap. */
  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId!: string | null;

  @Column({ type: 'text' })
  action!: string;

  /** The changed fields before and after; `before` is null when the account was created. */
  @Column({ type: 'jsonb', nullable: true })
  before!: Record<string, unknown> | null;

  @Column({ type: 'jsonb' })
  after!: Record<string, unknown>;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  at!: Date;
}
